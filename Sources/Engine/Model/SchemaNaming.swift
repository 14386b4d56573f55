/// How the model maps onto SQL tables. Shared by the store (which creates the schema) and
/// the predicate compiler (which queries it), so the two can never disagree.
///
/// - one table per entity, named as the entity; its integer primary key `_pk` is the N of
///   `Entity/N`, and `_version` counts its saves (optimistic locking);
/// - one column per attribute, named as the attribute;
/// - one column per to-one relationship, named as the relationship, holding the destination's N;
/// - a to-many relationship whose inverse is to-one has no column: it is the inverse's column
///   read backwards;
/// - a many-to-many pair shares one join table (see `joinTable`).
/// Every identifier is validated against the model and double-quoted; none comes from input.
public enum SchemaNaming {
    public static let primaryKey = "_pk"
    public static let version = "_version"
    public static let metadataTable = "_fetchd_metadata"

    /// `"name"` with embedded quotes doubled.
    public static func quoted(_ identifier: String) -> String { enclosed(identifier, in: "\"") }

    /// A standard SQL string literal, `'text'` with embedded quotes doubled (SQLite, and
    /// PostgreSQL with standard_conforming_strings, read nothing else specially).
    public static func stringLiteral(_ text: String) -> String { enclosed(text, in: "'") }

    private static func enclosed(_ text: String, in quote: Character) -> String {
        var out = String(quote)
        out.reserveCapacity(text.utf8.count + 2)
        for c in text {
            if c == quote { out.append(quote) }
            out.append(c)
        }
        out.append(quote)
        return out
    }

    /// The join table of a many-to-many relationship: its name, the column holding this
    /// side's N and the column holding the other side's N. Both sides of the pair get the
    /// same table; the side whose `Entity.relationship` sorts first names it.
    public static func joinTable(entity: String, relationship: Relationship)
        -> (table: String, selfColumn: String, otherColumn: String)
    {
        let mine = "\(entity).\(relationship.name)"
        let theirs = "\(relationship.destination).\(relationship.inverse)"
        if mine <= theirs {
            return ("_join_\(entity)_\(relationship.name)", "a", "b")
        } else {
            return ("_join_\(relationship.destination)_\(relationship.inverse)", "b", "a")
        }
    }

    /// Whether a relationship is stored as a column of its own entity's table.
    public static func hasColumn(_ relationship: Relationship) -> Bool { !relationship.toMany }

    /// Whether a relationship is one side of a many-to-many pair (stored in a join table).
    public static func isManyToMany(_ relationship: Relationship, in model: ObjectModel) -> Bool {
        relationship.toMany && (model.inverse(of: relationship)?.toMany ?? false)
    }
}
