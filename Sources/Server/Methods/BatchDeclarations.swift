import Contexts
import JSON
import Model
import Predicates

/// Batch requests (protocol.md §5 "Batch requests"): straight to the store in one
/// transaction; every merging root takes each as one change cycle.
public enum BatchDeclarations {
    static let rowErrors: [ErrorKind] = [
        .invalidParams, .engine(.noStore), .engine(.unknownEntity), .engine(.validation), .engine(.storeBusy),
        .engine(.storeError), .engine(.mergeConflict),
    ]
    static let query: [ErrorKind] = [
        .engine(.unknownKey), .engine(.typeMismatch), .engine(.invalidValue), .engine(.predicateSyntax),
        .engine(.missingVariable),
    ]

    public static let insert = MethodDeclaration<BatchInsertParams, BatchInsertResult>(
        "store/batchInsert", "Inserts many objects of one entity in one transaction (NSBatchInsertRequest).",
        errors: rowErrors)
    public static let update = MethodDeclaration<BatchUpdateParams, Single<CountMember>>(
        "store/batchUpdate", "Sets values on every matching saved object in one transaction (NSBatchUpdateRequest).",
        errors: rowErrors + query)
    public static let delete = MethodDeclaration<BatchDeleteParams, Single<CountMember>>(
        "store/batchDelete",
        "Deletes the matching saved objects in one transaction, with their delete rules (NSBatchDeleteRequest).",
        errors: rowErrors + query)
}

private let entityParam = ParamSpec.required("entity", .string, "The entity's name.")
private let predicateParam = ParamSpec.optional(
    "predicate", .string, "Which saved objects (§7); every object of the entity when absent.")
private let variablesParam = ParamSpec.optional(
    "variables", .object([], additional: .any), "The predicate's $variables, as in a fetch request.")

/// The predicate and its variables as a compiled filter; nil without a predicate.
private func batchFilter(_ p: ParamReader, _ entity: Entity, _ scope: ParamScope) throws -> (any ObjectFilter)? {
    guard p.has("predicate") else { return nil }
    var request = JSONObject()
    request["entity"] = .string(entity.name)
    request["predicate"] = try .string(p.string("predicate"))
    if let variables = p.optionalJSON("variables") { request["variables"] = variables }
    let decoded = try FetchRequest(from: ParamReader(request))
    return try scope.compiler().compile(decoded).filter
}

public struct BatchInsertParams: RPCParams {
    public static let params: [ParamSpec] = [
        entityParam,
        .optional(
            "objects", .array(.object([], additional: .any)), "One object of values per row, keyed as on the wire."),
        .optional("keys", .array(.string), "The columnar form: the keys every row of rows gives, in order."),
        .optional("rows", .array(.array(.any)), "The columnar form: one array of values per row, in keys order."),
        .optional("returnIds", .boolean, "Answer the new ids too (false by default)."),
    ]
    let graph: ObjectGraph
    let entity: Entity
    var rows: [Snapshot] = []
    /// Values that could not be read, by row and key.
    var rejected: [ObjectGraph.BatchProblem] = []
    let returnIds: Bool

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p.string("entity"))
        let objects = try p.optionalArray("objects", of: JSONObject.self) ?? []
        let keys = try p.optionalStringArray("keys")
        let columns = try p.optionalArray("rows", of: [JSON].self)
        if columns != nil && keys == nil { throw p.mismatch("keys", "the keys of rows", got: "missing") }
        returnIds = try p.optionalBool("returnIds") ?? false
        rows.reserveCapacity(objects.count + (columns?.count ?? 0))
        // The objects first, then the rows: row numbers count on through both.
        for object in objects {
            var values = Snapshot(minimumCapacity: object.count)
            for (key, json) in object { read(json, key, entity.key(key), into: &values) }
            rows.append(values)
        }
        guard let keys, let columns else { return }
        var seen = Set<String>()
        for key in keys where !seen.insert(key).inserted {
            rejected.append(.init(key: key, reason: "listed twice in keys"))
        }
        // Each key looked up once, not once per row.
        let kinds = keys.map { entity.key($0) }
        for items in columns {
            var values = Snapshot(minimumCapacity: keys.count)
            if items.count != keys.count {
                rejected.append(
                    .init(row: rows.count, reason: "\(items.count) value(s) for \(keys.count) key(s)"))
            } else {
                for i in items.indices { read(items[i], keys[i], kinds[i], into: &values) }
            }
            rows.append(values)
        }
    }

    /// One value typed by its key (`kind`, what the entity says `key` is); a problem is
    /// noted against the current row.
    private mutating func read(_ json: JSON, _ key: String, _ kind: Entity.Key?, into values: inout Snapshot) {
        do throws(EngineError) {
            switch kind {
            case nil:
                rejected.append(.init(row: rows.count, key: key, reason: "\(entity.name) has no key \(key)"))
            case .attribute(let a):
                values[key] = try WireValue.value(json, as: a.type)
            case .relationship(let r):
                values[key] = try WireValue.value(json, for: r)
            }
        } catch {
            rejected.append(.init(row: rows.count, key: key, reason: error.message))
        }
    }
}

public struct BatchInsertResult: RPCResult {
    public static let resultName = "inserted"
    public static let schema = Schema.object(
        [("count", .integer), ("ids", .array(.ref("ObjectID")))], required: ["count"], closed: true)
    let ids: [ObjectID]
    let returnIds: Bool
    public var json: JSON {
        var o: JSONObject = ["count": .integer(Int64(ids.count))]
        if returnIds { o["ids"] = .array(ids.map { .string($0.description) }) }
        return .object(o)
    }
}

public struct BatchUpdateParams: RPCParams {
    public static let params: [ParamSpec] = [
        entityParam,
        .required("values", .object([], additional: .any), "The values every matching object takes, by key."),
        predicateParam, variablesParam,
    ]
    let graph: ObjectGraph
    let entity: Entity
    let filter: (any ObjectFilter)?
    let values: Snapshot

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p.string("entity"))
        values = try WireValue.snapshot(try p.required("values"), for: entity)
        filter = try batchFilter(p, entity, scope)
    }
}

public struct BatchDeleteParams: RPCParams {
    public static let params: [ParamSpec] = [
        entityParam,
        .optional("ids", .array(.ref("ObjectID")), "These objects (with a predicate: those of them it matches)."),
        predicateParam, variablesParam,
    ]
    let graph: ObjectGraph
    let entity: Entity
    let filter: (any ObjectFilter)?
    let ids: [ObjectID]?

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p.string("entity"))
        if let texts = try p.optionalStringArray("ids") {
            var ids: [ObjectID] = []
            for (i, text) in texts.enumerated() {
                guard let id = ObjectID(text) else { throw p.mismatch("ids[\(i)]", "an id Entity/N", got: text) }
                ids.append(id)
            }
            self.ids = ids
        } else {
            ids = nil
        }
        filter = try batchFilter(p, entity, scope)
    }
}
