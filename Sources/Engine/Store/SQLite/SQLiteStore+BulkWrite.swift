import Model
import Predicates
import SQLite

/// Set-based writes for batch requests on entities whose rows are all their state (no
/// to-many relationship, so no join rows and nothing derived to read per row): one
/// statement reads the matching rows, one records them in the history with their old
/// values, one changes them. What a save writes row by row, for the whole set at once.
///
/// The writing statements are `OR FAIL`: a statement that fails keeps what it wrote before
/// the failure, instead of undoing it from a statement journal. A failure ends the batch,
/// whose whole transaction is rolled back, so nothing needs that journal, and writing one
/// (the old content of every page a 100k-row update touches, in a temporary file) cost
/// about as much as the update itself.
extension SQLiteStore {
    /// Whether `entity` keeps everything in its own row.
    public func isSingleRow(_ entity: String) -> Bool {
        tables[entity]?.isSingleRow ?? false
    }

    /// The saved rows of a single-row entity that `filter` matches (all without one), by id number.
    public func readMatching(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> [(
        ObjectID, StoredObject
    )] {
        let t = try singleRowTable(entity)
        let (whereSQL, values) = Self.whereClause(filter)
        let bindings = values.map(ValueEncoding.sql)
        guard !whereSQL.isEmpty, try sortsRows(t, whereSQL, bindings) else {
            return try readRows(t, Self.matching(t, whereSQL), bindings)
        }
        // The filter finds its rows by an index in another order (a range of a sort key):
        // their numbers alone from the index, then the rows looked up in number order, instead
        // of every matched row's columns sorted by number and the table read out of order.
        // The same rows: the filter runs as it is, inside.
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        let inside = " WHERE t.\(pk) IN (SELECT t.\(pk) FROM \(q(entity)) AS t\(whereSQL))"
        return try readRows(t, Self.matching(t, inside), bindings)
    }

    /// Whether SQLite would sort the rows `whereSQL` chooses to read them by number.
    private func sortsRows(_ t: EntityTable, _ whereSQL: String, _ bindings: [SQLValue]) throws(EngineError) -> Bool {
        do {
            let s = try connection.prepare("EXPLAIN QUERY PLAN " + Self.rowsQuery(t, Self.matching(t, whereSQL)))
            defer { s.reset() }
            try s.bind(bindings)
            while try s.step() {
                if s.text(3).hasPrefix("USE TEMP B-TREE FOR ORDER BY") { return true }
            }
        } catch { throw Self.storeError(error, "query failed") }
        return false
    }

    /// A `FROM` clause of the rows `whereSQL` chooses (the table named `t`), by number.
    private static func matching(_ t: EntityTable, _ whereSQL: String) -> String {
        let q = SchemaNaming.quoted
        return " FROM \(q(t.entity.name)) AS t\(whereSQL) ORDER BY t.\(q(SchemaNaming.primaryKey))"
    }

    /// Every column of the rows `rows` chooses (a `FROM` clause naming the table `t`:
    /// `matching`, `numberedRows`), then `extra`.
    private static func rowsQuery(_ t: EntityTable, _ rows: String, extra: [String] = []) -> String {
        let q = SchemaNaming.quoted
        let columns =
            ([SchemaNaming.primaryKey, SchemaNaming.version] + t.attributes.map(\.name) + t.toOne.map(\.name))
            .map { "t.\(q($0))" } + extra
        return "SELECT \(columns.joined(separator: ", "))" + rows
    }

    /// The saved rows of a single-row entity numbered `numbers` that exist, by id number.
    public func readNumbered(entity: String, numbers: [Int64]) throws(EngineError) -> [(ObjectID, StoredObject)] {
        let t = try singleRowTable(entity)
        guard !numbers.isEmpty else { return [] }
        return try readRows(t, Self.numberedRows(t), [Self.numbered(Self.ascendingOnce(numbers)).list])
    }

    /// `readNumbered`, and for an update of `keys` that writes only its own columns
    /// (`SQLiteTable.partialUpdate`) what the history records of each row: its `old` text
    /// made by the same expression as the history's own statement, and the set columns as
    /// stored. Read under the write lock, so the row is still so when it is written.
    public func readNumbered(entity: String, numbers: [Int64], keepingHistoryOf keys: [String]) throws(EngineError)
        -> ([(ObjectID, StoredObject)], PriorHistory?)
    {
        guard !numbers.isEmpty, let only = sqlTables[entity]?.partialUpdate(keys), !only.joins else {
            return (try readNumbered(entity: entity, numbers: numbers), nil)
        }
        let t = try singleRowTable(entity)
        var kept = PriorHistory(entity: entity, columns: only.columns, capacity: numbers.count)
        let q = SchemaNaming.quoted
        let extra = [HistorySchema.oldValues(t.entity, "t.")] + kept.columns.map { "t.\(q($0))" }
        let first = Int32(2 + t.attributes.count + t.toOne.count)
        let columns = Int32(kept.columns.count)
        let list = Self.numbered(Self.ascendingOnce(numbers)).list
        let rows = try readRows(t, Self.numberedRows(t), [list], extra: extra) { s, row in
            kept.append(
                version: row.version, old: s.text(first),
                stored: (first + 1..<first + 1 + columns).lazy.map { ValueEncoding.untyped(s.value($0)) })
        }
        return (rows, kept)
    }

    /// `numbers` ascending, each once.
    private static func ascendingOnce(_ numbers: [Int64]) -> [Int64] {
        var sorted = numbers.sorted()
        var last: Int64?
        sorted.removeAll { n in
            defer { last = n }
            return n == last
        }
        return sorted
    }

    /// The rows `rows` chooses (`rowsQuery`), with `extra` expressions selected after their
    /// columns for `each` to read.
    private func readRows(
        _ t: EntityTable, _ rows: String, _ bindings: [SQLValue], extra: [String] = [],
        each: (Statement, StoredObject) -> Void = { _, _ in }
    ) throws(EngineError) -> [(ObjectID, StoredObject)] {
        var out: [(ObjectID, StoredObject)] = []
        do {
            let s = try connection.prepare(Self.rowsQuery(t, rows, extra: extra))
            defer { s.reset() }
            try s.bind(bindings)
            while try s.step() {
                let row = StoredObject(values: Self.rowValues(s, t, from: 2), version: s.int64(1))
                each(s, row)
                out.append((ObjectID(entity: t.entity.name, number: s.int64(0)), row))
            }
        } catch { throw Self.storeError(error, "query failed") }
        return out
    }

    /// Inside the open write transaction: `values` (attributes and to-one references) on the
    /// rows numbered `numbers` (ascending; those `readMatching` found that the values change),
    /// each recorded in the history as a save records an update, its version up by one.
    /// By number, not by the filter again: the rows are visited in table order, once each.
    public func updateMatching(entity: String, numbers: [Int64], values: Snapshot) throws(EngineError) {
        let t = try singleRowTable(entity)
        let set = (t.attributes.map(\.name) + t.toOne.map(\.name)).filter { values[$0] != nil }
        guard !set.isEmpty, !numbers.isEmpty else { return }
        let setValues = set.map { ValueEncoding.sql(values[$0]!) }
        let rows = Self.numbered(numbers)
        do {
            let db = try connection
            try db.prepare(Self.recordUpdates(t, set, from: Self.numberedRows(t))).run(
                [.integer(try writingToken())] + setValues + [rows.list])
            try db.prepare(Self.updateRows(t, set) + rows.sql).run(setValues + [rows.list])
        } catch let e as EngineError {
            throw e
        } catch { throw Self.storeError(error, "the batch was not written") }
    }

    /// Inside the open write transaction: deletes the rows numbered `numbers` (ascending),
    /// each recorded in the history as a save records a delete.
    public func deleteMatching(entity: String, numbers: [Int64]) throws(EngineError) {
        let t = try singleRowTable(entity)
        guard !numbers.isEmpty else { return }
        let rows = Self.numbered(numbers)
        do {
            let db = try connection
            try db.prepare(Self.recordDeletes(t, from: Self.numberedRows(t))).run([
                .integer(try writingToken()), rows.list,
            ])
            try db.prepare(Self.deleteRows(t) + rows.sql).run([rows.list])
        } catch let e as EngineError {
            throw e
        } catch { throw Self.storeError(error, "the batch was not written") }
    }

    /// The history rows of an update of `set` (binds: the token, then `set`'s values), up to
    /// the rows' `WHERE` clause. `keys` lists the columns whose value differs (none when `set`
    /// is empty: an update of links alone).
    static func recordUpdates(_ t: EntityTable, _ set: [String], from rows: String? = nil) -> String {
        let q = SchemaNaming.quoted
        let keys = HistorySchema.changedKeys(set) { "t.\(q($1)) IS NOT ?" }
        return "INSERT OR FAIL INTO \"\(HistorySchema.history)\" (txn, entity, pk, op, keys, version, old) "
            + "SELECT ?, \(HistorySchema.literal(t.entity.name)), t.\(q(SchemaNaming.primaryKey)), 'U', \(keys), "
            + "t.\(q(SchemaNaming.version)), \(HistorySchema.oldValues(t.entity, "t."))"
            + (rows ?? " FROM \(q(t.entity.name)) AS t")
    }

    /// The history row of an update of `set` from what was read of the row beforehand
    /// (`PriorHistory`), with no read of it: binds the token, the number, the version, the
    /// `old` text, then per column of `set` its stored value and its new one. The same row as
    /// `recordUpdates` makes.
    static func recordKnownUpdate(_ t: EntityTable, _ set: [String]) -> String {
        let keys = HistorySchema.changedKeys(set) { i, _ in "?\(5 + 2 * i) IS NOT ?\(6 + 2 * i)" }
        return "INSERT OR FAIL INTO \"\(HistorySchema.history)\" (txn, entity, pk, op, keys, version, old) "
            + "VALUES (?1, \(HistorySchema.literal(t.entity.name)), ?2, 'U', \(keys), ?3, ?4)"
    }

    /// The update of `set` (binds: `set`'s values), version up by one, up to the `WHERE` clause.
    static func updateRows(_ t: EntityTable, _ set: [String]) -> String {
        let q = SchemaNaming.quoted
        let assignments =
            set.map { "\(q($0)) = ?" } + ["\(q(SchemaNaming.version)) = t.\(q(SchemaNaming.version)) + 1"]
        return "UPDATE OR FAIL \(q(t.entity.name)) AS t SET \(assignments.joined(separator: ", "))"
    }

    /// The history rows of a delete (binds: the token), up to the `WHERE` clause.
    static func recordDeletes(_ t: EntityTable, from rows: String? = nil) -> String {
        let q = SchemaNaming.quoted
        return "INSERT OR FAIL INTO \"\(HistorySchema.history)\" (txn, entity, pk, op, version, old) "
            + "SELECT ?, \(HistorySchema.literal(t.entity.name)), t.\(q(SchemaNaming.primaryKey)), 'D', "
            + "t.\(q(SchemaNaming.version)), \(HistorySchema.oldValues(t.entity, "t."))"
            + (rows ?? " FROM \(q(t.entity.name)) AS t")
    }

    /// A `FROM` clause of the rows (named `t`) whose numbers the list bound last gives
    /// (`numbered`: ascending, each once), in its order: json_each drives the loop and each
    /// row is looked up by its key. `IN (SELECT value FROM json_each(?))` would first copy
    /// the list into a temporary index (20k of 200k rows: 5.3k instructions a row read
    /// that way, 3.7k this way; a history row 9.8k against 8.2k).
    static func numberedRows(_ t: EntityTable) -> String {
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        return " FROM json_each(?) AS j CROSS JOIN \(q(t.entity.name)) AS t ON t.\(pk) = j.value"
    }

    static func deleteRows(_ t: EntityTable) -> String { "DELETE FROM \(SchemaNaming.quoted(t.entity.name)) AS t" }

    /// A `WHERE` clause choosing rows by number from one bound JSON array (the last binding):
    /// SQLite looks each up by its key, in the array's (ascending) order.
    private static func numbered(_ numbers: [Int64]) -> (sql: String, list: SQLValue) {
        assert(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "ascending, each once")
        // The digits go straight into one buffer: no String made per number.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(numbers.count * 8 + 2)
        bytes.append(UInt8(ascii: "["))
        for (i, n) in numbers.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            if n < 0 { bytes.append(UInt8(ascii: "-")) }
            var m = n.magnitude
            let first = bytes.count
            repeat {
                bytes.append(UInt8(ascii: "0") + UInt8(m % 10))
                m /= 10
            } while m > 0
            bytes[first...].reverse()
        }
        bytes.append(UInt8(ascii: "]"))
        let list = String(decoding: bytes, as: UTF8.self)
        return (
            " WHERE t.\(SchemaNaming.quoted(SchemaNaming.primaryKey)) IN (SELECT value FROM json_each(?))",
            .text(list)
        )
    }

    func singleRowTable(_ entity: String) throws(EngineError) -> EntityTable {
        guard let t = tables[entity] else {
            throw EngineError(.unknownEntity, "no entity \(entity)", [("entity", .string(entity))])
        }
        guard isSingleRow(entity) else {
            throw EngineError(.invalidValue, "\(entity) has to-many relationships", [("entity", .string(entity))])
        }
        return t
    }

    func writingToken() throws(EngineError) -> Int64 {
        guard let token = writeToken else {
            throw EngineError(.storeError, "no write transaction is open", [])
        }
        return token
    }
}
