import Model
import Predicates

/// The layout of one entity's table, as both dialects lay it out (`SchemaNaming`): the
/// attribute and to-one columns after `_version`, the to-many sides, the join tables. A
/// class: it is looked up per row, and copying a struct of this many fields costs a retain each.
final class EntityTable {
    let entity: Entity
    /// Attributes, then to-one relationships: the columns after `_version` in every row read.
    let attributes: [Attribute]
    let toOne: [Relationship]
    let toMany: [Relationship]
    let manyToMany: [(relationship: Relationship, table: String, selfColumn: String, otherColumn: String)]
    /// The attribute and to-one keys of a row read, each with a null, laid out once, with room
    /// for the to-many keys: a row's dictionary starts as a copy of it and gets its values by
    /// position (`rowSlots`), with no key hashed per row. Every row read then lists its keys
    /// in one order, so comparing two rows walks both in step (`DifferingKeys`).
    let rowTemplate: Snapshot
    /// The template's entries of the attribute columns, then of the to-one columns.
    let rowSlots: [Snapshot.Index]

    init(_ e: Entity, in model: ObjectModel) {
        entity = e
        attributes = e.attributes
        toOne = e.relationships.filter(SchemaNaming.hasColumn)
        toMany = e.relationships.filter(\.toMany)
        manyToMany = toMany.filter { SchemaNaming.isManyToMany($0, in: model) }.map { r in
            let j = SchemaNaming.joinTable(entity: e.name, relationship: r)
            return (relationship: r, table: j.table, selfColumn: j.selfColumn, otherColumn: j.otherColumn)
        }
        var template = Snapshot(minimumCapacity: e.attributes.count + e.relationships.count)
        let keys = attributes.map(\.name) + toOne.map(\.name)
        for key in keys { template[key] = .null }
        rowTemplate = template
        rowSlots = keys.map { template.index(forKey: $0)! }
    }

    /// Whether the entity keeps everything in its own row (no to-many relationship): set-based
    /// batch writes need nothing but that row.
    var isSingleRow: Bool { toMany.isEmpty }

    /// The SQL that lists the destinations of `r` (a to-many of this entity) for the object
    /// bound as `parameter`, ascending: a join table's other column, or the destinations
    /// pointing back through the inverse.
    /// `table` quotes a join table's name as the dialect names it.
    func toManyQuery(_ r: Relationship, parameter: String, table: (String) -> String = SchemaNaming.quoted) -> String {
        let q = SchemaNaming.quoted
        if let j = manyToMany.first(where: { $0.relationship.name == r.name }) {
            return
                "SELECT \(q(j.otherColumn)) FROM \(table(j.table)) WHERE \(q(j.selfColumn)) = \(parameter) ORDER BY 1"
        }
        return
            "SELECT \(q(SchemaNaming.primaryKey)) FROM \(q(r.destination)) WHERE \(q(r.inverse)) = \(parameter) ORDER BY 1"
    }
}
