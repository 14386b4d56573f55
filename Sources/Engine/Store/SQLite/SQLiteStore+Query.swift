import Model
import Predicates
import SQLite

/// Reading a compiled request's matches from the saved rows. The contexts hand over the
/// compiled filter and ordering; the SQL text and its statements stay in this module.
extension SQLiteStore {
    /// How many saved objects of `entity` match `filter`, leaving out the id numbers in
    /// `skipping` (objects a context evaluates in memory instead).
    public func count(entity: String, filter: (any ObjectFilter)?, skipping skipped: Set<Int64> = [])
        throws(EngineError) -> Int
    {
        let table = SchemaNaming.quoted(entity)
        let (whereSQL, bindings) = Self.whereClause(filter)
        do {
            let db = try connection
            if skipped.isEmpty {
                let s = try db.prepare("SELECT count(*) FROM \(table) AS t\(whereSQL)")
                defer { s.reset() }
                try s.bind(bindings.map(ValueEncoding.sql))
                _ = try s.step()
                return Int(s.int64(0))
            }
            let s = try db.prepare("SELECT \(Self.primaryKey("t")) FROM \(table) AS t\(whereSQL)")
            defer { s.reset() }
            try s.bind(bindings.map(ValueEncoding.sql))
            let skip = NumberSet(skipped)
            var n = 0
            while try s.step() {
                if !skip.contains(s.int64(0)) { n += 1 }
            }
            return n
        } catch { throw Self.storeError(error, "query failed") }
    }

    /// The saved objects of `entity` matching `filter`, in `ordering`'s order then by id
    /// number (by id number alone without an ordering), rows `[offset, offset + limit)`
    /// only: `body` gets each id number not in `skipping` and its key, decoded by the
    /// ordering into one buffer rewritten between calls (empty without key columns).
    public func forEachKey(
        entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?,
        limit: Int? = nil, offset: Int = 0, skipping skipped: Set<Int64> = [], ordered: Bool = true,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        let alias = "t"
        let pk = Self.primaryKey(alias)
        let keyColumns = ordering?.keyColumns(alias: alias) ?? []
        let (whereSQL, whereBindings) = Self.whereClause(filter)
        let columns = ([pk] + keyColumns.map(\.text)).joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(SchemaNaming.quoted(entity)) AS \(alias)\(whereSQL)"
        var bindings = keyColumns.flatMap(\.bindings) + whereBindings
        if !ordered {
            // Any order (the caller sorts what it keeps): no index walk, no sort.
        } else if let ordering {
            let orderBy = ordering.orderBy(alias: alias)
            sql += orderBy.text.isEmpty ? " ORDER BY \(pk)" : " ORDER BY \(orderBy.text), \(pk)"
            bindings += orderBy.bindings
        } else {
            sql += " ORDER BY \(pk)"
        }
        if limit != nil || offset > 0 { sql += " LIMIT \(limit.map(String.init) ?? "-1") OFFSET \(max(0, offset))" }
        do {
            let s = try connection.prepare(sql)
            defer { s.reset() }
            try s.bind(bindings.map(ValueEncoding.sql))
            let skip = NumberSet(skipped)
            if let ordering, !keyColumns.isEmpty {
                try Self.scan(s, ordering, width: keyColumns.count, skipping: skip, body)
            } else {
                while try s.step() {
                    let number = s.int64(0)
                    if !skip.contains(number) { body(number, []) }
                }
            }
        } catch { throw Self.storeError(error, "query failed") }
    }

    /// Steps `s` (id, then `width` key columns) and hands each row not in `skipped` to
    /// `row`, its key decoded by `ordering` into one reused buffer. Generic so the ordering
    /// is opened once here, not copied out of its existential box per row.
    private static func scan<O: ObjectOrdering>(
        _ s: Statement, _ ordering: O, width: Int, skipping skipped: NumberSet,
        _ row: (Int64, SortKey) -> Void
    ) throws(SQLiteError) {
        var key = SortKey(repeating: .null, count: width)
        let columns = Int32(width)
        let screened = !skipped.isEmpty
        while try s.step() {
            let number = s.int64(0)
            if screened && skipped.contains(number) { continue }
            for c in 0..<columns { key[Int(c)] = ValueEncoding.untyped(s.value(c + 1)) }
            ordering.decodeKey(&key)
            row(number, key)
        }
    }

    private static func primaryKey(_ alias: String) -> String {
        "\(alias).\(SchemaNaming.quoted(SchemaNaming.primaryKey))"
    }

    static func whereClause(_ filter: (any ObjectFilter)?) -> (String, [Value]) {
        guard let f = filter?.sql(alias: "t") else { return ("", []) }
        return (" WHERE \(f.text)", f.bindings)
    }
}
