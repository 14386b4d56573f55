import Contexts
import JSON
import Model

/// What a context holds and has changed (protocol.md §6, "Introspection"): Core Data's
/// hasChanges, inserted/updated/deletedObjects, changedValues(), committedValues(forKeys:),
/// refresh(_:mergeChanges:) and reset().
public enum IntrospectionDeclarations {
    typealias C = ContextDeclarations
    static let object: [ErrorKind] = [.engine(.unknownEntity), .engine(.unknownObject)]

    public static let hasChanges = MethodDeclaration<ContextParams, Single<HasChangesMember>>(
        "context/hasChanges", "Whether the context has unsaved changes.", errors: C.named)
    public static let changes = MethodDeclaration<ContextParams, ChangesResult>(
        "context/changes", "The ids of the context's unsaved inserts, updates and deletes.", errors: C.named)
    public static let changedValues = MethodDeclaration<ObjectParams, Single<ValuesMember>>(
        "context/changedValues",
        "The keys of an object whose values differ from the committed ones, with the values here.",
        errors: C.named + object)
    public static let committedValues = MethodDeclaration<CommittedValuesParams, Single<ValuesMember>>(
        "context/committedValues", "An object's values as the parent (the store for a root) shows them.",
        errors: C.named + object + [.engine(.unknownKey)])
    public static let refresh = MethodDeclaration<RefreshParams, EmptyResult>(
        "context/refresh", "Re-bases (mergeChanges true) or drops (false) the context's unsaved change to an object.",
        errors: C.named + object + [.engine(.invalidValue)])
    public static let reset = MethodDeclaration<ContextParams, EmptyResult>(
        "context/reset", "Forgets every unsaved change of the context (a change cycle, as rollback).",
        errors: C.named)
}

public enum HasChangesMember: SingleMember {
    public static let member = "hasChanges"
    public static let memberSchema = Schema.boolean
}

public enum ValuesMember: SingleMember {
    public static let member = "values"
    public static let memberSchema = Schema.object([], additional: .any)
}

public struct ChangesResult: RPCResult {
    public static let resultName = "changes"
    static let ids = Schema.array(.ref("ObjectID"))
    public static let schema = Schema.object(
        [("inserted", ids), ("updated", ids), ("deleted", ids)], required: ["inserted", "updated", "deleted"],
        closed: true)
    let changes: ChangedObjects
    public var json: JSON {
        func list(_ ids: [ObjectID]) -> JSON { .array(ids.map { .string($0.description) }) }
        return .object([
            "inserted": list(changes.inserted), "updated": list(changes.updated), "deleted": list(changes.deleted),
        ])
    }
}

public struct CommittedValuesParams: RPCParams {
    public static let params = ParamSpec.list(contextParam, idParam, keysParam)
    let context: Context
    let id: ObjectID
    let entity: Entity
    let keys: Set<String>?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        id = try p[idParam]
        entity = try scope.entity(id.entity)
        keys = try WireObject.projection(try p[keysParam], entity: entity)
    }
}

public struct RefreshParams: RPCParams {
    static let mergeChanges = Param<Bool>.required(
        "mergeChanges", .boolean, "true keeps the unsaved change on the committed values; false drops it.")
    public static let params = ParamSpec.list(contextParam, idParam, mergeChanges)
    let context: Context
    let id: ObjectID
    let mergeChanges: Bool
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        id = try p[idParam]
        _ = try scope.entity(id.entity)
        mergeChanges = try p[Self.mergeChanges]
    }
}
