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

let contextParam = Param<String>.required("context", .string, "A context's name.")
let idParam = Param<ObjectID>.required("id", .ref("ObjectID"))
let keysParam = Param<[String]?>.optional("keys", .array(.string), "Only these keys of each object (after its id).")
let valuesParam = Param<JSONObject>.required(
    "values", .object([], additional: .any), "Values by key, as on the wire.")
let requestParam = Param<FetchRequest>.required("request", .ref("FetchRequest"))

public struct ContextParams: RPCParams {
    public static let params = ParamSpec.list(contextParam)
    let context: Context
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
    }
}

/// `context/close`: the graph is required before the name is read.
public struct CloseContextParams: RPCParams {
    public static let params = ParamSpec.list(contextParam)
    let graph: ObjectGraph
    let context: String
    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        context = try p[contextParam]
    }
}

extension MergePolicy: ParamValue {}

public struct CreateContextParams: RPCParams {
    static let name = Param<String>.required("name", .string)
    static let parent = Param<String?>.optional("parent", .string, "Makes a child context of that one.")
    static let mergesChangesFromParent = Param<Bool?>.optional(
        "mergesChangesFromParent", .boolean, "true by default.")
    static let mergePolicy = Param<MergePolicy?>.optional(
        "mergePolicy", .cases(MergePolicy.self), "\"error\" by default.")
    static let transactionAuthor = Param<String?>.optional(
        "transactionAuthor", .string, "Recorded with the root's saves in the history (protocol.md §5).")
    static let levels = Param<Int?>.optional("levels", Schema.integer.minimum(1))
    static let undo = Param<JSONObject?>.optional(
        "undo", .object(members: [levels]),
        "Turns undo on (protocol.md §6): {} keeps every group, {levels: n} the newest n.")
    public static let params = ParamSpec.list(
        name, parent, mergesChangesFromParent, mergePolicy, transactionAuthor, undo)

    let graph: ObjectGraph
    let name: String
    let parent: String?
    let mergesChangesFromParent: Bool
    let mergePolicy: MergePolicy
    let transactionAuthor: String?
    /// nil: no undo; .some(nil): undo without a limit.
    let undoLevels: Int??

    public init(params p: ParamReader, in scope: ParamScope) throws {
        mergePolicy = try p[Self.mergePolicy] ?? .error
        graph = try scope.graph()
        name = try p[Self.name]
        parent = try p[Self.parent]
        mergesChangesFromParent = try p[Self.mergesChangesFromParent] ?? true
        transactionAuthor = try p[Self.transactionAuthor]
        undoLevels = try p.members(Self.undo).map { undo throws in try undo[Self.levels] }
    }
}

public struct InsertParams: RPCParams {
    static let entity = Param<String>.required("entity", .string)
    public static let params = ParamSpec.list(contextParam, entity, valuesParam)
    let context: Context
    let entity: Entity
    let values: Snapshot
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        entity = try scope.entity(try p[Self.entity])
        values = try WireValue.snapshot(try p[valuesParam], for: entity)
    }
}

public struct UpdateParams: RPCParams {
    public static let params = ParamSpec.list(contextParam, idParam, valuesParam)
    let context: Context
    let id: ObjectID
    let entity: Entity
    let values: Snapshot
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        id = try p[idParam]
        entity = try scope.entity(id.entity)
        values = try WireValue.snapshot(try p[valuesParam], for: entity)
    }
}

public struct ObjectParams: RPCParams {
    public static let params = ParamSpec.list(contextParam, idParam)
    let context: Context
    let id: ObjectID
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        id = try p[idParam]
        _ = try scope.entity(id.entity)
    }
}

public struct GetParams: RPCParams {
    static let ids = Param<[ObjectID]>.required("ids", .array(.ref("ObjectID")))
    public static let params = ParamSpec.list(contextParam, ids, keysParam)
    let context: Context
    let ids: [(ObjectID, Entity)]
    let keys: Set<String>?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        var ids: [(ObjectID, Entity)] = []
        for id in try p[Self.ids] { ids.append((id, try scope.entity(id.entity))) }
        self.ids = ids
        // Ids of several entities: each object shows the projected keys it has; a key none
        // of them has is an error.
        let keys = try p[keysParam]
        for key in keys ?? [] where !ids.contains(where: { $0.1.key(key) != nil }) {
            let entity = ids.first?.1.name ?? ""
            throw EngineError(
                .unknownKey, "no key \(key) on \(entity)", [("entity", .string(entity)), ("key", .string(key))])
        }
        self.keys = keys.map(Set.init)
    }
}

extension FetchResultType: ParamValue {}
extension AggregateFunction: ParamValue {}

public struct FetchParams: RPCParams {
    static let resultType = Param<FetchResultType?>.optional(
        "resultType", .cases(FetchResultType.self),
        "\"object\" (default): objects; \"dictionary\": rows of key paths and expressions; \"id\": ids.")
    static let expressionName = Param<String>.required("name", .string)
    static let function = Param<AggregateFunction>.required("function", .cases(AggregateFunction.self))
    static let keyPath = Param<String>.required("keyPath", .string)
    static let propertiesToFetch = Param<[JSON]?>.optional(
        "propertiesToFetch", .array(.oneOf(.string, .object(members: [expressionName, function, keyPath]))),
        "Dictionary results: key paths (through to-one relationships) and {name, function, keyPath}.")
    static let propertiesToGroupBy = Param<[String]?>.optional(
        "propertiesToGroupBy", .array(.string), "Dictionary results: one row per group of these key paths.")
    static let havingPredicate = Param<String?>.optional(
        "havingPredicate", .string, "Dictionary results: a predicate over the rows (group keys, expressions).")
    static let returnsDistinctResults = Param<Bool?>.optional(
        "returnsDistinctResults", .boolean, "Dictionary results without groups: each row once.")
    public static let params = ParamSpec.list(
        contextParam, requestParam, keysParam, resultType, propertiesToFetch, propertiesToGroupBy, havingPredicate,
        returnsDistinctResults)
    let context: Context
    let request: FetchRequest
    let compiled: CompiledRequest
    let entity: Entity
    let keys: Set<String>?
    let resultType: FetchResultType
    /// For `resultType: "dictionary"`.
    let dictionary: DictionaryRequest?

    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        request = try p[requestParam]
        // A grouped dictionary fetch sorts its rows by result keys, not the entity's.
        var objectsRequest = request
        if p.object["resultType"] == .string("dictionary") && Self.groups(p) { objectsRequest.sortDescriptors = [] }
        compiled = try scope.compiler().compile(objectsRequest)
        entity = try scope.entity(request.entity)
        keys = try WireObject.projection(try p[keysParam], entity: entity)
        let type = try p[Self.resultType] ?? .object
        resultType = type
        // Each param checked first, so a bad one is named whatever the result type.
        let properties = try p[Self.propertiesToFetch]
        let groupBy = try p[Self.propertiesToGroupBy]
        let having = try p[Self.havingPredicate]
        let distinct = try p[Self.returnsDistinctResults]
        guard type == .dictionary else {
            let dictionaryOnly: [any ParamKey] = [
                Self.propertiesToFetch, Self.propertiesToGroupBy, Self.havingPredicate, Self.returnsDistinctResults,
            ]
            if let given = dictionaryOnly.first(where: p.has)?.spec.name {
                throw EngineError(
                    .invalidValue, "\(given) needs resultType \"dictionary\" (this fetch's is \"\(type.rawValue)\")",
                    [("key", .string(given)), ("resultType", .string(type.rawValue))])
            }
            dictionary = nil
            return
        }
        var r = DictionaryRequest(
            entity: request.entity, filter: compiled.filter, ordering: compiled.ordering,
            properties: try Self.properties(properties, p, entity), groupBy: groupBy ?? [], distinct: distinct ?? false,
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
        if let having { r.having = try RequestCompiler.rowFilter(having, entity: request.entity, columns: columns) }
        dictionary = r
    }

    /// Whether a dictionary fetch groups: group keys, or a function among the properties.
    static func groups(_ p: ParamReader) -> Bool {
        if case .array(let g)? = p.object["propertiesToGroupBy"], !g.isEmpty { return true }
        if case .array(let list)? = p.object["propertiesToFetch"] {
            return list.contains { if case .object = $0 { return true } else { return false } }
        }
        return false
    }

    /// `propertiesToFetch` (checked): key paths and expressions; every attribute when absent.
    static func properties(_ list: [JSON]?, _ p: ParamReader, _ entity: Entity) throws -> [DictionaryProperty] {
        guard let list else { return entity.attributes.map { DictionaryProperty(name: $0.name, keyPath: $0.name) } }
        var properties: [DictionaryProperty] = []
        for (i, item) in list.enumerated() {
            guard case .object(let o) = item else {
                let path = item.stringValue ?? ""
                properties.append(DictionaryProperty(name: path, keyPath: path))
                continue
            }
            let e = ParamReader(o, path: p.name("propertiesToFetch") + "[\(i)].")
            properties.append(
                DictionaryProperty(
                    name: try e[Self.expressionName], keyPath: try e[Self.keyPath], function: try e[Self.function]))
        }
        return properties
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
    public static let params = ParamSpec.list(contextParam, requestParam)
    let context: Context
    let request: FetchRequest
    let compiled: CompiledRequest
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        request = try p[requestParam]
        compiled = try scope.compiler().compile(request)
    }
}
