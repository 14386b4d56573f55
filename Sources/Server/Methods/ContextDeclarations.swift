import Contexts
import JSON
import Model
import Predicates

/// Contexts (protocol.md §6).
public enum ContextDeclarations {
    static let named: [ErrorKind] = [.invalidParams, .engine(.noStore), .engine(.unknownContext)]
    static let values: [ErrorKind] = [
        .engine(.unknownEntity), .engine(.unknownKey), .engine(.unknownObject),
        .engine(.typeMismatch), .engine(.invalidValue),
    ]
    static let query: [ErrorKind] = [
        .engine(.unknownEntity), .engine(.unknownKey), .engine(.typeMismatch),
        .engine(.invalidValue), .engine(.predicateSyntax), .engine(.missingVariable),
    ]

    public static let create = MethodDeclaration<CreateContextParams, Single<ContextMember>>(
        "context/create", "Creates a context: a root, or a child of parent.",
        errors: named + [.engine(.duplicateName), .engine(.invalidValue)])
    public static let insert = MethodDeclaration<InsertParams, Single<ObjectMember>>(
        "context/insert", "Inserts an object; its id is permanent.", errors: named + values)
    public static let update = MethodDeclaration<UpdateParams, Single<ObjectMember>>(
        "context/update", "Changes some values of an object.", errors: named + values)
    public static let delete = MethodDeclaration<ObjectParams, EmptyResult>(
        "context/delete", "Deletes an object, applying its delete rules.",
        errors: named + [
            .engine(.unknownEntity), .engine(.unknownObject), .engine(.invalidValue), .engine(.deleteDenied),
        ])
    public static let get = MethodDeclaration<GetParams, Single<ObjectsMember>>(
        "context/get", "Reads objects by id, in the order of ids.",
        errors: named + [.engine(.unknownEntity), .engine(.unknownKey), .engine(.unknownObject)])
    public static let fetch = MethodDeclaration<FetchParams, Single<FetchResultsMember>>(
        "context/fetch", "The objects a fetch request selects, in its order.", errors: named + query)
    public static let count = MethodDeclaration<CountParams, Single<CountMember>>(
        "context/count", "How many objects a fetch request selects (after fetchOffset and fetchLimit).",
        errors: named + query)
    public static let save = MethodDeclaration<ContextParams, SaveResult>(
        "context/save", "Saves: into the parent, or to the store for a root.",
        errors: named + [.engine(.validation), .engine(.mergeConflict), .engine(.storeError)])
    public static let rollback = MethodDeclaration<ContextParams, EmptyResult>(
        "context/rollback", "Discards every unsaved change.", errors: named)
    public static let processPendingChanges = MethodDeclaration<ContextParams, EmptyResult>(
        "context/processPendingChanges", "Ends the context's change cycle now.", errors: named)
    public static let close = MethodDeclaration<CloseContextParams, EmptyResult>(
        "context/close", "Closes a context and its children, dropping unsaved changes.", errors: named)
}

public enum ContextMember: SingleMember {
    public static let member = "context"
    public static let memberSchema = Schema.string
}

public enum CountMember: SingleMember {
    public static let member = "count"
    public static let memberSchema = Schema.integer
}

public struct SaveResult: RPCResult {
    public static let resultName = "counts"
    public static let schema = Schema.object(
        [("inserted", .integer), ("updated", .integer), ("deleted", .integer)],
        required: ["inserted", "updated", "deleted"], closed: true)
    let counts: SaveCounts
    public var json: JSON {
        .object([
            "inserted": .integer(Int64(counts.inserted)), "updated": .integer(Int64(counts.updated)),
            "deleted": .integer(Int64(counts.deleted)),
        ])
    }
}

let contextParam = ParamSpec.required("context", .string, "A context's name.")
let idParam = ParamSpec.required("id", .ref("ObjectID"))
let keysParam = ParamSpec.optional("keys", .array(.string), "Only these keys of each object (after its id).")
let valuesParam = ParamSpec.required("values", .object([], additional: .any), "Values by key, as on the wire.")
let requestParam = ParamSpec.required("request", .ref("FetchRequest"))

public struct ContextParams: RPCParams {
    public static let params = [contextParam]
    let context: Context
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
    }
}

/// `context/close`: the graph is required before the name is read.
public struct CloseContextParams: RPCParams {
    public static let params = [contextParam]
    let graph: ObjectGraph
    let context: String
    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        context = try p.string("context")
    }
}

public struct CreateContextParams: RPCParams {
    public static let params: [ParamSpec] = [
        .required("name", .string),
        .optional("parent", .string, "Makes a child context of that one."),
        .optional("mergesChangesFromParent", .boolean, "true by default."),
        .optional("mergePolicy", .strings(MergePolicy.allCases.map(\.rawValue)), "\"error\" by default."),
        .optional("transactionAuthor", .string, "Recorded with the root's saves in the history (protocol.md §5)."),
        .optional(
            "undo", .object([("levels", .integer)], closed: true),
            "Turns undo on (protocol.md §6): {} keeps every group, {levels: n} the newest n."),
    ]
    let graph: ObjectGraph
    let name: String
    let parent: String?
    let mergesChangesFromParent: Bool
    let mergePolicy: MergePolicy
    let transactionAuthor: String?
    /// nil: no undo; .some(nil): undo without a limit.
    let undoLevels: Int??

    public init(params p: ParamReader, in scope: ParamScope) throws {
        var policy = MergePolicy.error
        if let text = try p.optionalString("mergePolicy") {
            guard let parsed = MergePolicy(rawValue: text) else {
                throw p.mismatch(
                    "mergePolicy", MergePolicy.allCases.map(\.rawValue).joined(separator: " | "), got: "\"\(text)\"")
            }
            policy = parsed
        }
        mergePolicy = policy
        graph = try scope.graph()
        name = try p.string("name")
        parent = try p.optionalString("parent")
        mergesChangesFromParent = try p.optionalBool("mergesChangesFromParent") ?? true
        transactionAuthor = try p.optionalString("transactionAuthor")
        if let undo = try p.optionalObject("undo") {
            for key in undo.object.keys where key != "levels" {
                throw undo.mismatch(key, "levels", got: "unknown key")
            }
            let levels = try undo.optionalInt("levels")
            if let levels, levels < 1 { throw undo.mismatch("levels", "a positive integer", got: "\(levels)") }
            undoLevels = .some(levels)
        } else {
            undoLevels = nil
        }
    }
}

public struct InsertParams: RPCParams {
    public static let params = [contextParam, ParamSpec.required("entity", .string), valuesParam]
    let context: Context
    let entity: Entity
    let values: Snapshot
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        entity = try scope.entity(try p.string("entity"))
        values = try WireValue.snapshot(try p.required("values"), for: entity)
    }
}

public struct UpdateParams: RPCParams {
    public static let params = [contextParam, idParam, valuesParam]
    let context: Context
    let id: ObjectID
    let entity: Entity
    let values: Snapshot
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        id = try p.id("id")
        entity = try scope.entity(id.entity)
        values = try WireValue.snapshot(try p.required("values"), for: entity)
    }
}

public struct ObjectParams: RPCParams {
    public static let params = [contextParam, idParam]
    let context: Context
    let id: ObjectID
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        id = try p.id("id")
        _ = try scope.entity(id.entity)
    }
}

public struct GetParams: RPCParams {
    public static let params = [contextParam, ParamSpec.required("ids", .array(.ref("ObjectID"))), keysParam]
    let context: Context
    let ids: [(ObjectID, Entity)]
    let keys: Set<String>?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        var ids: [(ObjectID, Entity)] = []
        for (i, text) in try p.stringArray("ids").enumerated() {
            let id = try ParamReader.id(text, p.name("ids[\(i)]"))
            ids.append((id, try scope.entity(id.entity)))
        }
        self.ids = ids
        // Ids of several entities: each object shows the projected keys it has; a key none
        // of them has is an error.
        let keys = try p.optionalStringArray("keys")
        for key in keys ?? [] where !ids.contains(where: { $0.1.key(key) != nil }) {
            let entity = ids.first?.1.name ?? ""
            throw EngineError(
                .unknownKey, "no key \(key) on \(entity)", [("entity", .string(entity)), ("key", .string(key))])
        }
        self.keys = keys.map(Set.init)
    }
}

public struct FetchParams: RPCParams {
    public static let params: [ParamSpec] = [
        contextParam, requestParam, keysParam,
        .optional(
            "resultType", .strings(FetchResultType.allCases.map(\.rawValue)),
            "\"object\" (default): objects; \"dictionary\": rows of key paths and expressions; \"id\": ids."),
        .optional(
            "propertiesToFetch",
            .array(
                .oneOf(
                    .string,
                    .object(
                        [
                            ("name", .string), ("function", .strings(AggregateFunction.allCases.map(\.rawValue))),
                            ("keyPath", .string),
                        ], required: ["name", "function", "keyPath"], closed: true))),
            "Dictionary results: key paths (through to-one relationships) and {name, function, keyPath}."),
        .optional("propertiesToGroupBy", .array(.string), "Dictionary results: one row per group of these key paths."),
        .optional(
            "havingPredicate", .string, "Dictionary results: a predicate over the rows (group keys, expressions)."),
        .optional("returnsDistinctResults", .boolean, "Dictionary results without groups: each row once."),
    ]
    let context: Context
    let request: FetchRequest
    let compiled: CompiledRequest
    let entity: Entity
    let keys: Set<String>?
    let resultType: FetchResultType
    /// For `resultType: "dictionary"`.
    let dictionary: DictionaryRequest?

    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        request = try p.decode("request")
        // A grouped dictionary fetch sorts its rows by result keys, not the entity's.
        var objectsRequest = request
        if p.object["resultType"] == .string("dictionary") && Self.groups(p) { objectsRequest.sortDescriptors = [] }
        compiled = try scope.compiler().compile(objectsRequest)
        entity = try scope.entity(request.entity)
        keys = try WireObject.projection(try p.optionalStringArray("keys"), entity: entity)
        let typeName = try p.optionalString("resultType") ?? FetchResultType.object.rawValue
        guard let type = FetchResultType(rawValue: typeName) else {
            throw p.mismatch(
                "resultType", FetchResultType.allCases.map(\.rawValue).joined(separator: " | "), got: "\"\(typeName)\"")
        }
        resultType = type
        // Each param's type first, so a mistyped one is named whatever the result type.
        _ = try p.optionalArray("propertiesToFetch", of: JSON.self)
        _ = try p.optionalStringArray("propertiesToGroupBy")
        _ = try p.optionalString("havingPredicate")
        _ = try p.optionalBool("returnsDistinctResults")
        let dictionaryOnly = ["propertiesToFetch", "propertiesToGroupBy", "havingPredicate", "returnsDistinctResults"]
        guard type == .dictionary else {
            if let given = dictionaryOnly.first(where: p.has) {
                throw EngineError(
                    .invalidValue, "\(given) needs resultType \"dictionary\" (this fetch's is \"\(typeName)\")",
                    [("key", .string(given)), ("resultType", .string(typeName))])
            }
            dictionary = nil
            return
        }
        dictionary = try Self.dictionaryRequest(p, request, compiled, entity, context)
    }

    /// Whether a dictionary fetch groups: group keys, or a function among the properties.
    static func groups(_ p: ParamReader) -> Bool {
        if case .array(let g)? = p.object["propertiesToGroupBy"], !g.isEmpty { return true }
        if case .array(let list)? = p.object["propertiesToFetch"] {
            return list.contains { if case .object = $0 { return true } else { return false } }
        }
        return false
    }

    static func dictionaryRequest(
        _ p: ParamReader, _ request: FetchRequest, _ compiled: CompiledRequest, _ entity: Entity, _ context: Context
    ) throws -> DictionaryRequest {
        var properties: [DictionaryProperty] = []
        if let list = try p.optionalArray("propertiesToFetch", of: JSON.self) {
            for (i, item) in list.enumerated() {
                if case .string(let path) = item {
                    properties.append(DictionaryProperty(name: path, keyPath: path))
                    continue
                }
                guard case .object(let o) = item else {
                    throw p.mismatch(
                        "propertiesToFetch[\(i)]", "a key path or {name, function, keyPath}", got: item.typeName)
                }
                let e = ParamReader(o, path: p.name("propertiesToFetch") + "[\(i)].")
                for key in o.keys where !["name", "function", "keyPath"].contains(key) {
                    throw e.mismatch(key, "one of function, keyPath, name", got: "unknown key")
                }
                let functionName = try e.string("function")
                guard let function = AggregateFunction(rawValue: functionName) else {
                    throw e.mismatch(
                        "function", AggregateFunction.allCases.map(\.rawValue).joined(separator: " | "),
                        got: "\"\(functionName)\"")
                }
                properties.append(
                    DictionaryProperty(name: try e.string("name"), keyPath: try e.string("keyPath"), function: function)
                )
            }
        } else {
            properties = entity.attributes.map { DictionaryProperty(name: $0.name, keyPath: $0.name) }
        }
        let groupBy = try p.optionalStringArray("propertiesToGroupBy") ?? []
        var r = DictionaryRequest(
            entity: request.entity, filter: compiled.filter, ordering: compiled.ordering, properties: properties,
            groupBy: groupBy, distinct: try p.optionalBool("returnsDistinctResults") ?? false,
            limit: request.fetchLimit, offset: request.fetchOffset)
        let columns = try context.resultColumns(r)
        if r.isGrouped {
            // Sort descriptors name result keys: group keys and expression names.
            for d in request.sortDescriptors {
                guard columns.contains(where: { $0.name == d.key }) else {
                    throw EngineError(
                        .unknownKey, "the rows have no key \(d.key) to sort by (group keys and expression names)",
                        [("entity", .string(request.entity)), ("key", .string(d.key))])
                }
                r.resultOrder.append((d.key, d.ascending, d.comparator))
            }
        }
        if let having = try p.optionalString("havingPredicate") {
            r.having = try RequestCompiler.rowFilter(having, entity: request.entity, columns: columns)
        }
        return r
    }
}

/// `context/fetch`'s `resultType` (Core Data's NSFetchRequestResultType).
public enum FetchResultType: String, CaseIterable, Sendable {
    case object, dictionary, id
}

/// `{objects}` of `context/fetch`: objects, dictionary rows or ids, as `resultType` asks.
public enum FetchResultsMember: SingleMember {
    public static let member = "objects"
    public static let memberSchema = Schema.array(.oneOf(.ref("ObjectID"), .object([], additional: .any)))
}

public struct CountParams: RPCParams {
    public static let params = [contextParam, requestParam]
    let context: Context
    let request: FetchRequest
    let compiled: CompiledRequest
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        request = try p.decode("request")
        compiled = try scope.compiler().compile(request)
    }
}
