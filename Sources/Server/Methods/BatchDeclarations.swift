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
        errors: rowErrors, reportsProgress: true)
    public static let cancelInsert = MethodDeclaration<BatchCancelInsertParams, Single<CountMember>>(
        "store/cancelBatchInsert", "Drops the rows held for an entity's batch insert sent in parts (`more`).",
        errors: [.invalidParams, .engine(.noStore), .engine(.unknownEntity)])
    public static let update = MethodDeclaration<BatchUpdateParams, Single<CountMember>>(
        "store/batchUpdate", "Sets values on every matching saved object in one transaction (NSBatchUpdateRequest).",
        errors: rowErrors + query, reportsProgress: true)
    public static let updateObjects = MethodDeclaration<BatchUpdateObjectsParams, Single<CountMember>>(
        "store/batchUpdateObjects",
        "Gives each of many saved objects its own values in one transaction (many updates and a save at once).",
        errors: rowErrors, reportsProgress: true)
    public static let delete = MethodDeclaration<BatchDeleteParams, Single<CountMember>>(
        "store/batchDelete",
        "Deletes the matching saved objects in one transaction, with their delete rules (NSBatchDeleteRequest).",
        errors: rowErrors + query, reportsProgress: true)
}

private let entityParam = Param<String>.required("entity", .string, "The entity's name.")
private let predicateParam = Param<String?>.optional(
    "predicate", .string, "Which saved objects (§7); every object of the entity when absent.")
private let variablesParam = Param<JSONObject?>.optional(
    "variables", FetchRequestWire.variablesSchema, "The predicate's $variables, as in a fetch request.")
// Repeated keys are rejected rows (the batch's own error), not invalidParams.
private let columnKeysParam = Param<[String]?>.optional(
    "keys", Schema.array(.string).uniqueItems(), "The columnar form: the keys every row of rows gives, in order.")
private let rowsParam = Param<[JSON]?>.optional(
    "rows", .array(.array(.any)), "The columnar form: one array of values per row, in keys order.")

/// The predicate and its variables as a compiled filter; nil without a predicate.
private func batchFilter(_ p: ParamReader, _ entity: Entity, _ scope: ParamScope) throws -> (any ObjectFilter)? {
    guard let predicate = try p[predicateParam] else { return nil }
    let (variables, lists) = FetchRequestWire.values(try p[variablesParam])
    let request = FetchRequest(entity: entity.name, predicate: predicate, variables: variables, listVariables: lists)
    return try scope.compiler().compile(request).filter
}

public struct BatchInsertParams: RPCParams {
    static let objects = Param<[JSONObject]?>.optional(
        "objects", .array(.object([], additional: .any)), "One object of values per row, keyed as on the wire.")
    static let returnIds = Param<Bool?>.optional("returnIds", .boolean, "Answer the new ids too (false by default).")
    static let more = Param<Bool?>.optional(
        "more", .boolean,
        "More parts of this insert follow: these rows are checked and held, and the next request without `more` writes every part in one transaction."
    )
    public static let params = ParamSpec.list(entityParam, objects, columnKeysParam, rowsParam, returnIds, more)
    let graph: ObjectGraph
    let entity: Entity
    var rows: [Snapshot] = []
    /// Values that could not be read, by row and key.
    var rejected: [ObjectGraph.BatchProblem] = []
    let returnIds: Bool
    let more: Bool

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p[entityParam])
        returnIds = try p[Self.returnIds] ?? false
        more = try p[Self.more] ?? false
        var reader = RowReader(entity)
        // The objects first, then the rows: row numbers count on through both.
        for object in try p[Self.objects] ?? [] { rows.append(reader.read(object)) }
        // Taken whole when there are no objects: appending would copy every row's reference.
        let columnar = try reader.readColumns(p)
        if rows.isEmpty { rows = columnar } else { rows += columnar }
        rejected = reader.rejected
    }
}

/// Rows of values typed by the entity's keys, as both forms of a batch give them (objects
/// keyed as on the wire, or `keys` and `rows`); what cannot be read is noted by row and key.
struct RowReader {
    let entity: Entity
    private(set) var rejected: [ObjectGraph.BatchProblem] = []
    /// Rows read so far: the number of the next.
    private var row = 0

    init(_ entity: Entity) { self.entity = entity }

    /// One object's values (leaving out `skipping`, a key of the form's own).
    mutating func read(_ object: JSONObject, skipping: String? = nil) -> Snapshot {
        var values = Snapshot(minimumCapacity: object.count)
        for (key, json) in object where key != skipping {
            if let v = value(json, key, Column(entity.key(key))) { values[key] = v }
        }
        row += 1
        return values
    }

    /// The columnar form's rows (none without `rows`).
    mutating func readColumns(_ p: ParamReader) throws -> [Snapshot] {
        let keys = try p[columnKeysParam]
        guard let columns = try p[rowsParam] else { return [] }
        guard let keys else { throw p.mismatch("keys", "the keys of rows", got: "missing") }
        var seen = Set<String>()
        for key in keys where !seen.insert(key).inserted {
            rejected.append(.init(key: key, reason: "listed twice in keys"))
        }
        // Each key looked up once, not once per row; an attribute kept as its type alone, so
        // reading a value copies (and retains) nothing of the model.
        let kinds = keys.map { Column(entity.key($0)) }
        // Every row has the same keys: its dictionary starts as a copy of one template (the
        // same table, nothing hashed) and gets its values by position. The template's
        // indices hold for each copy, which keeps the table's layout until a key is added.
        var template = Snapshot(minimumCapacity: keys.count)
        for key in keys { template[key] = .null }
        let slots = keys.map { template.index(forKey: $0)! }
        var read: [Value?] = Array(repeating: nil, count: keys.count)
        var out: [Snapshot] = []
        out.reserveCapacity(columns.count)
        for column in columns {
            defer { row += 1 }
            let items = column.arrayValue ?? []
            guard items.count == keys.count else {
                rejected.append(.init(row: row, reason: "\(items.count) value(s) for \(keys.count) key(s)"))
                out.append([:])
                continue
            }
            var complete = true
            for i in items.indices {
                read[i] = value(items[i], keys[i], kinds[i])
                if read[i] == nil { complete = false }
            }
            var values = complete ? template : Snapshot(minimumCapacity: keys.count)
            for i in read.indices {
                guard let v = read[i] else { continue }
                if complete { values.values[slots[i]] = v } else { values[keys[i]] = v }
            }
            out.append(values)
        }
        return out
    }

    /// What the entity says a key is: for an attribute only its type.
    private enum Column {
        case attribute(AttributeType)
        case relationship(Relationship)
        case unknown

        init(_ key: Entity.Key?) {
            switch key {
            case .attribute(let a)?: self = .attribute(a.type)
            case .relationship(let r)?: self = .relationship(r)
            case nil: self = .unknown
            }
        }
    }

    /// One value typed by its key (`kind`, what the entity says `key` is); nil, with a problem
    /// noted against the current row, when it is not one.
    private mutating func value(_ json: JSON, _ key: String, _ kind: Column) -> Value? {
        do throws(EngineError) {
            switch kind {
            case .unknown:
                rejected.append(.init(row: row, key: key, reason: "\(entity.name) has no key \(key)"))
                return nil
            case .attribute(let type):
                return try WireValue.value(json, as: type)
            case .relationship(let r):
                return try WireValue.value(json, for: r)
            }
        } catch {
            rejected.append(.init(row: row, key: key, reason: error.message))
            return nil
        }
    }
}

public struct BatchUpdateObjectsParams: RPCParams {
    static let id = Param<ObjectID>.required("id", .ref("ObjectID"))
    static let objects = Param<[JSONObject]?>.optional(
        "objects", .array(.object(members: [id], additional: .any)),
        "One object per row: its `id` and the values it takes, keyed as on the wire.")
    static let ids = Param<[ObjectID]?>.optional(
        "ids", .array(.ref("ObjectID")), "The columnar form: the object of each row of rows.")
    public static let params = ParamSpec.list(entityParam, objects, ids, columnKeysParam, rowsParam)
    let graph: ObjectGraph
    let entity: Entity
    var objects: [(ObjectID, Snapshot)] = []
    /// Values that could not be read, by row and key.
    var rejected: [ObjectGraph.BatchProblem] = []

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p[entityParam])
        var reader = RowReader(entity)
        // The objects first, then the rows: row numbers count on through both.
        for (i, object) in (try p[Self.objects] ?? []).enumerated() {
            let id = try ParamReader(object, path: p.name("objects[\(i)]."))[Self.id]
            objects.append((id, reader.read(object, skipping: "id")))
        }
        let ids = try p[Self.ids] ?? []
        let rows = try reader.readColumns(p)
        guard ids.count == rows.count else {
            throw p.mismatch("ids", "one id per row of rows (\(rows.count))", got: "\(ids.count)")
        }
        for (i, id) in ids.enumerated() { objects.append((id, rows[i])) }
        rejected = reader.rejected
    }
}

public struct BatchInsertResult: RPCResult {
    public static let resultName = "inserted"
    public static let schema = Schema.object(
        [("count", .integer), ("ids", .array(.ref("ObjectID"))), ("held", .integer)], required: ["count"],
        closed: true)
    let ids: [ObjectID]
    let returnIds: Bool
    /// A part sent with `more`: how many rows the insert holds now (nothing was written).
    var held: Int? = nil
    public var json: JSON {
        var o: JSONObject = ["count": .integer(Int64(ids.count))]
        if returnIds { o["ids"] = .array(ids.map { .string($0.description) }) }
        if let held { o["held"] = .integer(Int64(held)) }
        return .object(o)
    }
}

public struct BatchCancelInsertParams: RPCParams {
    public static let params = ParamSpec.list(entityParam)
    let graph: ObjectGraph
    let entity: Entity

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p[entityParam])
    }
}

public struct BatchUpdateParams: RPCParams {
    static let values = Param<JSONObject>.required(
        "values", .object([], additional: .any), "The values every matching object takes, by key.")
    public static let params = ParamSpec.list(entityParam, values, predicateParam, variablesParam)
    let graph: ObjectGraph
    let entity: Entity
    let filter: (any ObjectFilter)?
    let values: Snapshot

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p[entityParam])
        values = try WireValue.snapshot(try p[Self.values], for: entity)
        filter = try batchFilter(p, entity, scope)
    }
}

public struct BatchDeleteParams: RPCParams {
    static let ids = Param<[ObjectID]?>.optional(
        "ids", .array(.ref("ObjectID")), "These objects (with a predicate: those of them it matches).")
    public static let params = ParamSpec.list(entityParam, ids, predicateParam, variablesParam)
    let graph: ObjectGraph
    let entity: Entity
    let filter: (any ObjectFilter)?
    let ids: [ObjectID]?

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p[entityParam])
        ids = try p[Self.ids]
        filter = try batchFilter(p, entity, scope)
    }
}
