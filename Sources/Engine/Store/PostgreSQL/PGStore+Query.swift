import Model
import Postgres
import Predicates

/// Compiled requests on the saved rows. The filter and ordering become PostgreSQL SQL
/// (`PGQuery`); what PostgreSQL cannot evaluate exactly as memory does (`PGUnsupported`) is
/// evaluated here on the rows read back: the filter narrows the query to the matching id
/// numbers, the ordering sorts by keys computed from the objects.
extension PGStore {
    /// A WHERE condition (without WHERE; nil for none) and its parameters, numbered from
    /// `first`.
    func condition(_ filter: (any ObjectFilter)?, entity: String, first: Int = 1) throws(EngineError) -> (
        String?, [PGValue?]
    ) {
        guard let filter else { return (nil, []) }
        do {
            let f = try PGQuery.filter(filter, alias: "t", firstParameter: first)
            return (f.text, f.bindings.map { PGValueEncoding.parameter($0).map(PGValue.text) })
        } catch {
            let numbers = try matchingInMemory(filter, entity: entity)
            return ("t.\(SchemaNaming.quoted(SchemaNaming.primaryKey)) = ANY ($\(first)::bigint[])", [.ints(numbers)])
        }
    }

    /// The id numbers of `entity` whose objects `filter` matches, evaluated in memory.
    private func matchingInMemory(_ filter: any ObjectFilter, entity: String) throws(EngineError) -> [Int64] {
        let view = PGStoreView(store: self)
        var out: [Int64] = []
        for (number, object) in try readAll(entity) {
            if filter.matches(ObjectID(entity: entity, number: number), object.values, in: view) { out.append(number) }
        }
        try view.throwIfFailed()
        return out
    }

    private static var pk: String { "t.\(SchemaNaming.quoted(SchemaNaming.primaryKey))" }

    public func count(entity: String, filter: (any ObjectFilter)?, skipping skipped: Set<Int64> = [])
        throws(EngineError) -> Int
    {
        let (_, s) = try entityTables(entity)
        let (whereSQL, params) = try condition(filter, entity: entity)
        let clause = whereSQL.map { " WHERE \($0)" } ?? ""
        if skipped.isEmpty {
            return try run("query failed") { c in
                Int(try c.execPrepared("SELECT count(*) FROM \(s.table) AS t\(clause)", params).int64(0, 0) ?? 0)
            }
        }
        let numbers = try run("query failed") { c in
            try c.execPrepared("SELECT \(Self.pk) FROM \(s.table) AS t\(clause)", params).rows.map { Int64($0[0]!)! }
        }
        return numbers.filter { !skipped.contains($0) }.count
    }

    public func forEachKey(
        entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?,
        limit: Int? = nil, offset: Int = 0, skipping skipped: Set<Int64> = [], ordered: Bool = true,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        let (_, s) = try entityTables(entity)
        let (whereSQL, params) = try condition(filter, entity: entity)
        let clause = whereSQL.map { " WHERE \($0)" } ?? ""
        var orderBy: String?
        var keyColumns: [String] = []
        if let ordering {
            do {
                keyColumns = try PGQuery.keyColumns(ordering, alias: "t").map(\.text)
                orderBy = try PGQuery.orderBy(ordering, alias: "t").text
            } catch {
                return try forEachKeyInMemory(
                    entity, clause, params, ordering, limit: limit, offset: offset, skipping: skipped, body)
            }
        }
        var query = "SELECT \(([Self.pk] + keyColumns).joined(separator: ", ")) FROM \(s.table) AS t\(clause)"
        if ordered {
            query +=
                orderBy.map { $0.isEmpty ? " ORDER BY \(Self.pk)" : " ORDER BY \($0), \(Self.pk)" }
                ?? " ORDER BY \(Self.pk)"
        }
        if limit != nil || offset > 0 {
            query += " LIMIT \(limit.map(String.init) ?? "ALL") OFFSET \(max(0, offset))"
        }
        // Read in place: a million rows make no million arrays of strings.
        let types = ordering.map(PGQuery.keyTypes) ?? []
        let keyed = !keyColumns.isEmpty && types.count == keyColumns.count
        var key = SortKey(repeating: .null, count: keyed ? types.count : 0)
        try run("query failed") { c in
            try c.execPrepared(query, params) { row in
                guard let number = row.int64(0), !skipped.contains(number) else { return }
                if keyed {
                    for (i, type) in types.enumerated() { key[i] = Self.keyValue(row, i + 1, type) }
                }
                body(number, key)
            }
        }
    }

    /// A key column's value; integers and references without a string in between.
    private static func keyValue(_ row: PGRow, _ column: Int, _ type: PGValueEncoding.KeyTerminalType) -> Value {
        switch type {
        case .attribute(.integer): return row.int64(column).map(Value.integer) ?? .null
        case .object(let entity):
            return row.int64(column).map { .object(ObjectID(entity: entity, number: $0)) } ?? .null
        default: return PGValueEncoding.value(row.text(column), as: type)
        }
    }

    /// An ordering PostgreSQL cannot sort exactly: keys from the objects, sorted here.
    private func forEachKeyInMemory(
        _ entity: String, _ clause: String, _ params: [PGValue?], _ ordering: any ObjectOrdering,
        limit: Int?, offset: Int, skipping skipped: Set<Int64>, _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        let (_, s) = try entityTables(entity)
        let numbers = try run("query failed") { c in
            try c.execPrepared("SELECT \(Self.pk) FROM \(s.table) AS t\(clause)", params).rows.map { Int64($0[0]!)! }
        }
        let view = PGStoreView(store: self)
        let matching = Set(numbers)
        var keyed: [(Int64, SortKey)] = []
        for (number, object) in try readAll(entity) where matching.contains(number) {
            let id = ObjectID(entity: entity, number: number)
            keyed.append((number, ordering.key(of: id, object.values, in: view)))
        }
        try view.throwIfFailed()
        keyed.sort { a, b in
            let c = ordering.compare(a.1, b.1)
            return c != 0 ? c < 0 : a.0 < b.0
        }
        let start = min(max(0, offset), keyed.count)
        let end = limit.map { min(keyed.count, start + max(0, $0)) } ?? keyed.count
        for (number, key) in keyed[start..<end] where !skipped.contains(number) { body(number, key) }
    }

    public func aggregate(
        entity: String, filter: (any ObjectFilter)?, groupBy: [(String, AttributeType?)],
        functions: [(name: String, function: AggregateFunction, keyPath: String, type: AttributeType?)]
    ) throws(EngineError) -> [Snapshot] {
        let (t, s) = try entityTables(entity)
        let q = SchemaNaming.quoted
        func type(_ name: String, _ given: AttributeType?) -> AttributeType? {
            given ?? t.entity.attribute(name)?.type
        }
        func sorted(_ name: String, _ type: AttributeType?) -> String {
            "t.\(q(name))" + (type == .string || type == .uuid ? " COLLATE \"C\"" : "")
        }
        var selected = groupBy.map { "t.\(q($0.0))" }
        for f in functions {
            let x = "t.\(q(f.keyPath))"
            let ft = type(f.keyPath, f.type)
            let integral = ft == .integer || ft == .boolean
            // SQLite's sum() adds doubles one by one in row order (id order on a table scan);
            // `fetchd_fsum` adds the same way. Integers add exactly.
            let total = integral ? "sum(\(x)::bigint)" : "fetchd_fsum(\(x)::float8 ORDER BY \(Self.pk))"
            switch f.function {
            case .count: selected.append("count(\(x))")
            case .sum: selected.append("CASE WHEN count(\(x)) = 0 THEN NULL ELSE \(total) END")
            case .average:
                selected.append("CASE WHEN count(\(x)) = 0 THEN NULL ELSE (\(total))::float8 / count(\(x)) END")
            case .min, .max:
                let direction = f.function == .min ? "ASC" : "DESC"
                selected.append(
                    "(array_agg(\(x) ORDER BY \(sorted(f.keyPath, ft)) \(direction)) FILTER (WHERE \(x) IS NOT NULL))[1]"
                )
            }
        }
        let (whereSQL, params) = try condition(filter, entity: entity)
        var query = "SELECT \(selected.joined(separator: ", ")) FROM \(s.table) AS t"
        if let whereSQL { query += " WHERE \(whereSQL)" }
        if !groupBy.isEmpty {
            query += " GROUP BY \(groupBy.map { "t.\(q($0.0))" }.joined(separator: ", "))"
            query +=
                " ORDER BY \(groupBy.map { sorted($0.0, type($0.0, $0.1)) + " NULLS FIRST" }.joined(separator: ", "))"
        }
        let r = try run("aggregate query failed") { c in try c.execPrepared(query, params) }
        func decoded(_ text: String?, _ type: AttributeType?) -> Value {
            guard let text else { return .null }
            guard let type else {
                return Int64(text).map(Value.integer) ?? Double(text).map(Value.double) ?? .string(text)
            }
            return PGValueEncoding.value(text, as: .attribute(type))
        }
        return r.rows.map { row in
            var out: Snapshot = [:]
            var c = 0
            for (key, given) in groupBy {
                out[key] = decoded(row[c], type(key, given))
                c += 1
            }
            for f in functions {
                let ft = type(f.keyPath, f.type)
                switch f.function {
                case .count: out[f.name] = decoded(row[c], .integer)
                case .average: out[f.name] = decoded(row[c], .double)
                case .sum: out[f.name] = decoded(row[c], ft == .integer || ft == .boolean ? .integer : .double)
                case .min, .max: out[f.name] = decoded(row[c], ft)
                }
                c += 1
            }
            return out
        }
    }

    // MARK: Set-based batch writes

    public func isSingleRow(_ entity: String) -> Bool {
        tables[entity]?.isSingleRow ?? false
    }

    private func singleRow(_ entity: String) throws(EngineError) -> (EntityTable, PGEntitySQL) {
        let tables = try entityTables(entity)
        guard isSingleRow(entity) else {
            throw EngineError(.invalidValue, "\(entity) has to-many relationships", [("entity", .string(entity))])
        }
        return tables
    }

    public func readMatching(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> [(
        ObjectID, StoredObject
    )] {
        let (whereSQL, params) = try condition(filter, entity: entity)
        return try readRows(entity, whereSQL, params)
    }

    public func readNumbered(entity: String, numbers: [Int64]) throws(EngineError) -> [(ObjectID, StoredObject)] {
        try readRows(entity, "\(Self.pk) = ANY($1::bigint[])", [.ints(numbers)])
    }

    private func readRows(_ entity: String, _ whereSQL: String?, _ params: [PGValue?]) throws(EngineError) -> [(
        ObjectID, StoredObject
    )] {
        let (t, s) = try singleRow(entity)
        let columns = ([Self.pk, "t.\(SchemaNaming.quoted(SchemaNaming.version))"] + s.columns.map { "t.\($0)" })
            .joined(separator: ", ")
        let query =
            "SELECT \(columns) FROM \(s.table) AS t\(whereSQL.map { " WHERE \($0)" } ?? "") ORDER BY \(Self.pk)"
        let r = try run("query failed") { c in try c.execPrepared(query, params) }
        return r.rows.map { row in
            (
                ObjectID(entity: entity, number: Int64(row[0]!)!),
                StoredObject(values: Self.rowValues(row, t, from: 2), version: Int64(row[1]!) ?? 1)
            )
        }
    }

    /// Inside the open write transaction: `values` on the rows numbered `numbers` (their
    /// version up by one; the triggers record each row).
    public func updateMatching(entity: String, numbers: [Int64], values: Snapshot) throws(EngineError) {
        let (t, s) = try singleRow(entity)
        try requireWrite()
        let names = (t.attributes.map(\.name) + t.toOne.map(\.name)).filter { values[$0] != nil }
        guard !names.isEmpty, !numbers.isEmpty else { return }
        let q = SchemaNaming.quoted
        let params =
            names.map { PGValueEncoding.parameter(values[$0]!).map(PGValue.text) } + [.ints(numbers)]
        let assignments =
            names.enumerated().map { "\(q($0.element)) = $\($0.offset + 1)" } + [
                "\(q(SchemaNaming.version)) = t.\(q(SchemaNaming.version)) + 1"
            ]
        let query =
            "UPDATE \(s.table) AS t SET \(assignments.joined(separator: ", ")) WHERE \(Self.pk) = ANY($\(names.count + 1)::bigint[])"
        try runInWrite { c in try c.exec(query, params) }
    }

    /// Inside the open write transaction: deletes the rows numbered `numbers` (the triggers
    /// record each).
    public func deleteMatching(entity: String, numbers: [Int64]) throws(EngineError) {
        let (_, s) = try singleRow(entity)
        try requireWrite()
        guard !numbers.isEmpty else { return }
        let query = "DELETE FROM \(s.table) AS t WHERE \(Self.pk) = ANY($1::bigint[])"
        try runInWrite { c in try c.exec(query, [.ints(numbers)]) }
    }

    /// Not on PostgreSQL: its triggers record the history, and predicate batches there keep
    /// reading their rows (`updateMatching`, `deleteMatching`).
    public func updateWhere(entity: String, filter: (any ObjectFilter)?, values: Snapshot) throws(EngineError)
        -> Int?
    { nil }

    public func deleteWhere(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> Int? { nil }

    private func requireWrite() throws(EngineError) {
        guard isWriting else { throw EngineError(.storeError, "no write transaction is open", []) }
    }

    /// A failed statement aborts PostgreSQL's transaction: the write is rolled back.
    private func runInWrite(_ body: (PGConnection) throws -> Void) throws(EngineError) {
        do { try run("the batch was not written", body) } catch {
            rollbackWrite()
            throw error
        }
    }
}

/// The saved objects as an `ObjectView`, for filters and orderings evaluated in memory. The
/// view cannot throw in the middle of an evaluation: its first failed read is kept, and the
/// query that used it throws that (`throwIfFailed`) instead of answering with a row missing.
final class PGStoreView: ObjectView {
    let store: PGStore
    private(set) var failure: EngineError?

    init(store: PGStore) { self.store = store }

    func snapshot(of id: ObjectID) -> Snapshot? {
        do { return try store.readCurrent(id)?.values } catch {
            failure = failure ?? error
            return nil
        }
    }

    func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
        let q = SchemaNaming.quoted
        let query =
            "SELECT \(q(SchemaNaming.primaryKey)) FROM \(q(entity)) WHERE \(q(relationship)) = $1 ORDER BY 1"
        do {
            let rows = try store.run("query failed") { c in try c.execPrepared(query, [.int(target.number)]) }.rows
            return rows.map { ObjectID(entity: entity, number: Int64($0[0]!)!) }
        } catch {
            failure = failure ?? error
            return []
        }
    }

    func throwIfFailed() throws(EngineError) {
        if let failure { throw failure }
    }
}
