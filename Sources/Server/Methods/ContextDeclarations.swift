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
    public static let fetch = MethodDeclaration<FetchParams, Single<ObjectsMember>>(
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
    public static let params = [contextParam, requestParam, keysParam]
    let context: Context
    let request: FetchRequest
    let compiled: CompiledRequest
    let entity: Entity
    let keys: Set<String>?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        request = try p.decode("request")
        compiled = try scope.compiler().compile(request)
        entity = try scope.entity(request.entity)
        keys = try WireObject.projection(try p.optionalStringArray("keys"), entity: entity)
    }
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
