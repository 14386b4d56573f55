import Model
import Predicates
import SQLite

/// Predicate batches with no row read (`Store.updateWhere`, `Store.deleteWhere`): the same
/// statements as `updateMatching` and `deleteMatching` (SQLiteStore+BulkWrite.swift), the
/// rows chosen by the filter's own WHERE clause instead of by numbers read beforehand. The
/// history rows come out identical, in the same order (ascending numbers): a client reading
/// the history, or another process merging it, sees no difference.
extension SQLiteStore {
    public func updateWhere(entity: String, filter: (any ObjectFilter)?, values: Snapshot) throws(EngineError)
        -> Int?
    {
        let t = try singleRowTable(entity)
        let set = (t.attributes.map(\.name) + t.toOne.map(\.name)).filter { values[$0] != nil }
        // NaN binds as NULL, yet differs from itself as a value: the rows decide that.
        guard !set.isEmpty, !values.values.contains(where: \.isNaN) else { return nil }
        let setValues = set.map { ValueEncoding.sql(values[$0]!) }
        let (rows, filterValues) = chosenRows(filter)
        // A row changes where some value differs from the row as read back (`setting`).
        let differs = "(" + set.map { "\(Self.readBack(t, $0)) IS NOT ?" }.joined(separator: " OR ") + ")"
        let changed = (rows.isEmpty ? " WHERE " : rows + " AND ") + differs
        do {
            let db = try connection
            // Before the update, which may change what the filter reads.
            let matched = try count(t, rows, filterValues)
            try db.prepare(Self.recordUpdates(t, set) + changed + Self.byNumber).run(
                [.integer(try writingToken())] + setValues + filterValues + setValues)
            try db.prepare(Self.updateRows(t, set) + changed).run(setValues + filterValues + setValues)
            return matched
        } catch let e as EngineError {
            throw e
        } catch { throw Self.storeError(error, "the batch was not written") }
    }

    public func deleteWhere(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> Int? {
        let t = try singleRowTable(entity)
        let (rows, filterValues) = chosenRows(filter)
        do {
            let db = try connection
            try db.prepare(Self.recordDeletes(t) + rows + Self.byNumber).run(
                [.integer(try writingToken())] + filterValues)
            try db.prepare(Self.deleteRows(t) + rows).run(filterValues)
            return db.changes
        } catch let e as EngineError {
            throw e
        } catch { throw Self.storeError(error, "the batch was not written") }
    }

    /// The `WHERE` clause of `filter` (empty without one) and its bindings. The rows are
    /// visited in whatever order the planner likes (a range of an indexed key: by the index);
    /// only the history rows are sorted (`byNumber`): choosing the numbers first
    /// (`readMatching`'s way) measured no cheaper, and the write needs no order.
    private func chosenRows(_ filter: (any ObjectFilter)?) -> (String, [SQLValue]) {
        guard let f = filter?.sql(alias: "t") else { return ("", []) }
        return (" WHERE (\(f.text))", f.bindings.map(ValueEncoding.sql))
    }

    /// The history rows in ascending numbers whatever index the planner takes (without it, an
    /// index on a key the filter ranges over would order them by that key).
    private static let byNumber = " ORDER BY t.\(SchemaNaming.quoted(SchemaNaming.primaryKey))"

    /// How many rows `rows` (a `WHERE` clause) chooses.
    private func count(_ t: EntityTable, _ rows: String, _ bindings: [SQLValue]) throws -> Int {
        let s = try connection.prepare("SELECT count(*) FROM \(SchemaNaming.quoted(t.entity.name)) AS t\(rows)")
        defer { s.reset() }
        try s.bind(bindings)
        _ = try s.step()
        return Int(s.int64(0))
    }

    /// Column `key` as reading the row decodes it (`rowValues`), where that differs from its
    /// stored value: a boolean is any integer but 0, a reference only an integer.
    private static func readBack(_ t: EntityTable, _ key: String) -> String {
        let c = "t.\(SchemaNaming.quoted(key))"
        if t.attributes.first(where: { $0.name == key })?.type == .boolean {
            return "iif(typeof(\(c)) = 'integer', \(c) <> 0, \(c))"
        }
        if t.toOne.contains(where: { $0.name == key }) { return "iif(typeof(\(c)) = 'integer', \(c), NULL)" }
        return c
    }
}

extension Value {
    /// A double or date that is not a number.
    fileprivate var isNaN: Bool {
        switch self {
        case .double(let d), .date(let d): d.isNaN
        default: false
        }
    }
}
