import Model
import Predicates
import SQLite

/// The SQL of one entity's table, built once at open so reads and writes reuse the same
/// statement text (and so the same cached prepared statements). A class: it is looked up
/// per row, and copying a struct of this many fields costs a retain each.
final class EntityTable {
    let entity: Entity
    /// Attributes, then to-one relationships: the columns after `_version` in every row read.
    let attributes: [Attribute]
    let toOne: [Relationship]
    /// To-many relationships with the SQL that lists an object's destinations, ascending.
    let toMany: [(relationship: Relationship, sql: String)]
    let manyToMany: [(relationship: Relationship, table: String, selfColumn: String, otherColumn: String)]
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

    init(_ e: Entity, in model: ObjectModel) {
        entity = e
        attributes = e.attributes
        toOne = e.relationships.filter(SchemaNaming.hasColumn)
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        let version = q(SchemaNaming.version)
        let table = q(e.name)
        let columns = attributes.map { q($0.name) } + toOne.map { q($0.name) }
        var toMany: [(Relationship, String)] = []
        var joins: [(Relationship, String, String, String)] = []
        for r in e.relationships where r.toMany {
            if SchemaNaming.isManyToMany(r, in: model) {
                let j = SchemaNaming.joinTable(entity: e.name, relationship: r)
                joins.append((r, j.table, j.selfColumn, j.otherColumn))
                toMany.append(
                    (r, "SELECT \(q(j.otherColumn)) FROM \(q(j.table)) WHERE \(q(j.selfColumn)) = ? ORDER BY 1"))
            } else {
                toMany.append((r, "SELECT \(pk) FROM \(q(r.destination)) WHERE \(q(r.inverse)) = ? ORDER BY 1"))
            }
        }
        self.toMany = toMany.map { (relationship: $0.0, sql: $0.1) }
        self.manyToMany = joins.map { (relationship: $0.0, table: $0.1, selfColumn: $0.2, otherColumn: $0.3) }
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

    /// Whether the entity keeps everything in its own row (no to-many relationship): set-based
    /// batch writes need nothing but that row.
    var isSingleRow: Bool { entity.relationships.allSatisfy { !$0.toMany } }

    /// The bound values of `insert`/`update` columns (without the primary key), from a snapshot.
    func columnValues(_ values: Snapshot) -> [SQLValue] {
        var out: [SQLValue] = []
        out.reserveCapacity(attributes.count + toOne.count)
        for a in attributes { out.append(ValueEncoding.sql(values[a.name] ?? .null)) }
        for r in toOne { out.append(ValueEncoding.sql(values[r.name] ?? .null)) }
        return out
    }
}
