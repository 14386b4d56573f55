import Model
import Predicates
import SQLite

/// The SQL of one entity's table in a SQLite file, built once at open so reads and writes
/// reuse the same statement text (and so the same cached prepared statements).
final class SQLiteTable {
    let layout: EntityTable
    /// The to-many relationships with the SQL that lists an object's destinations.
    let toMany: [(relationship: Relationship, sql: String)]
    let selectByID: String
    let selectVersion: String
    let insert: String
    /// `insert` for 32 rows at once.
    let insert32: String
    let update: String
    let delete: String
    /// History rows of fetchd's own writes (HistorySchema).
    let recordUpdate: String
    let recordDelete: String

    var entity: Entity { layout.entity }
    var attributes: [Attribute] { layout.attributes }
    var toOne: [Relationship] { layout.toOne }
    var manyToMany: [(relationship: Relationship, table: String, selfColumn: String, otherColumn: String)] {
        layout.manyToMany
    }

    init(_ layout: EntityTable) {
        self.layout = layout
        let e = layout.entity
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        let version = q(SchemaNaming.version)
        let table = q(e.name)
        let columns = layout.attributes.map { q($0.name) } + layout.toOne.map { q($0.name) }
        toMany = layout.toMany.map { (relationship: $0, sql: layout.toManyQuery($0, parameter: "?")) }
        selectByID = "SELECT \(([version] + columns).joined(separator: ", ")) FROM \(table) WHERE \(pk) = ?"
        selectVersion = "SELECT \(version) FROM \(table) WHERE \(pk) = ?"
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        insert = "INSERT INTO \(table) (\(([pk] + columns).joined(separator: ", "))) VALUES (\(placeholders))"
        insert32 = insert + String(repeating: ", (\(placeholders))", count: 31)
        let sets = (columns.map { "\($0) = ?" } + ["\(version) = \(version) + 1"]).joined(separator: ", ")
        update = "UPDATE \(table) SET \(sets) WHERE \(pk) = ?"
        delete = "DELETE FROM \(table) WHERE \(pk) = ?"
        recordUpdate = HistorySchema.recordUpdate(e)
        recordDelete = HistorySchema.recordDelete(e)
    }

    /// `update` and `recordUpdate` for updates that change no column outside a key set: only
    /// those columns are bound and written (the row's other values, and its index entries on
    /// them, stay as they are), so updating one key of a wide row costs about what it costs
    /// a plain client. The statements of the predicate batches (`SQLiteStore.recordUpdates`,
    /// `updateRows`) chosen by number; both bind the columns' values then the number, the
    /// history row the token first. Made once per key set.
    struct PartialUpdate {
        let update: String
        let record: String
        /// `record` from what was read of the row beforehand (`PriorHistory`).
        let recordKnown: String
        /// The set's columns, in table order, as `attributes + toOne` list them.
        let columns: [String]
        /// Whether a to-many relationship stored in a join table is among the keys.
        let joins: Bool
    }

    private var partials: [[String]: PartialUpdate?] = [:]

    /// The partial update for `keys` (the keys the updates may change); nil when it would
    /// write every column anyway, or a key is not one of the entity's.
    func partialUpdate(_ keys: [String]) -> PartialUpdate? {
        if let known = partials[keys] { return known }
        let names = attributes.map(\.name) + toOne.map(\.name)
        let wanted = Set(keys)
        let joined = Set(manyToMany.map(\.relationship.name))
        let columns = names.filter(wanted.contains)
        var p: PartialUpdate?
        if wanted.isSubset(of: Set(names).union(joined)), columns.count < names.count {
            let byNumber = " WHERE t.\(SchemaNaming.quoted(SchemaNaming.primaryKey)) = ?"
            p = PartialUpdate(
                update: SQLiteStore.updateRows(layout, columns) + byNumber,
                record: SQLiteStore.recordUpdates(layout, columns) + byNumber,
                recordKnown: SQLiteStore.recordKnownUpdate(layout, columns), columns: columns,
                joins: !wanted.isDisjoint(with: joined))
        }
        partials[keys] = .some(p)
        return p
    }

    /// The bound values of `insert`/`update` columns (without the primary key), from a snapshot.
    func columnValues(_ values: Snapshot) -> [SQLValue] {
        var out: [SQLValue] = []
        out.reserveCapacity(attributes.count + toOne.count)
        for a in attributes { out.append(ValueEncoding.sql(values[a.name] ?? .null)) }
        for r in toOne { out.append(ValueEncoding.sql(values[r.name] ?? .null)) }
        return out
    }
}
