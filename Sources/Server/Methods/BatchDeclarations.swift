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
        .optional(
            "more", .boolean,
            "More parts of this insert follow: these rows are checked and held, and the next request without `more` writes every part in one transaction."
        ),
    ]
    let graph: ObjectGraph
    let entity: Entity
    var rows: [Snapshot] = []
    /// Values that could not be read, by row and key.
    var rejected: [ObjectGraph.BatchProblem] = []
    let returnIds: Bool
    let more: Bool

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p.string("entity"))
        returnIds = try p.optionalBool("returnIds") ?? false
        more = try p.optionalBool("more") ?? false
        var reader = RowReader(entity)
        // The objects first, then the rows: row numbers count on through both.
        for object in try p.optionalArray("objects", of: JSONObject.self) ?? [] { rows.append(reader.read(object)) }
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
        let keys = try p.optionalStringArray("keys")
        // Each row's array checked as it is read, not copied into a typed list first.
        guard let columns = try p.optional("rows", as: [JSON].self) else { return [] }
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
        for (n, column) in columns.enumerated() {
            defer { row += 1 }
            guard case .array(let items) = column else {
                throw p.mismatch("rows[\(n)]", [JSON].expected, got: column.typeName)
            }
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

/// `ids[i]` of a request as an id; invalidParams naming it otherwise.
private func objectID(_ json: JSON?, _ p: ParamReader, _ name: String) throws -> ObjectID {
    guard case .string(let text)? = json, let id = ObjectID(text) else {
        throw p.mismatch(name, "an id Entity/N", got: json.map { "\($0)" } ?? "missing")
    }
    return id
}

public struct BatchUpdateObjectsParams: RPCParams {
    public static let params: [ParamSpec] = [
        entityParam,
        .optional(
            "objects", .array(.object([("id", .ref("ObjectID"))], required: ["id"], additional: .any)),
            "One object per row: its `id` and the values it takes, keyed as on the wire."),
        .optional("ids", .array(.ref("ObjectID")), "The columnar form: the object of each row of rows."),
        .optional("keys", .array(.string), "The columnar form: the keys every row of rows gives, in order."),
        .optional("rows", .array(.array(.any)), "The columnar form: one array of values per row, in keys order."),
    ]
    let graph: ObjectGraph
    let entity: Entity
    var objects: [(ObjectID, Snapshot)] = []
    /// Values that could not be read, by row and key.
    var rejected: [ObjectGraph.BatchProblem] = []

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p.string("entity"))
        var reader = RowReader(entity)
        // The objects first, then the rows: row numbers count on through both.
        for (i, object) in (try p.optionalArray("objects", of: JSONObject.self) ?? []).enumerated() {
            let id = try objectID(object["id"], p, "objects[\(i)].id")
            objects.append((id, reader.read(object, skipping: "id")))
        }
        let ids = try p.optionalArray("ids", of: JSON.self) ?? []
        let rows = try reader.readColumns(p)
        guard ids.count == rows.count else {
            throw p.mismatch("ids", "one id per row of rows (\(rows.count))", got: "\(ids.count)")
        }
        for (i, json) in ids.enumerated() { objects.append((try objectID(json, p, "ids[\(i)]"), rows[i])) }
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
    public static let params: [ParamSpec] = [entityParam]
    let graph: ObjectGraph
    let entity: Entity

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        entity = try scope.entity(try p.string("entity"))
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
