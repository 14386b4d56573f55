import Model

/// The DDL for a model, following `SchemaNaming`. Columns are nullable at the SQL level:
/// required values are the engine's validation (it reports them by object and key), and a
/// removed relationship's column can stay behind as all-NULL after a light migration.
enum Schema: SchemaDDL {
    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uuid: return "TEXT"
        case .integer, .boolean: return "INTEGER"
        case .double, .date: return "REAL"
        case .binary: return "BLOB"
        }
    }

    static func columnDefinition(_ a: Attribute) -> String {
        "\(SchemaNaming.quoted(a.name)) \(sqlType(a.type))"
    }

    /// Foreign keys are checked at COMMIT, so one save may insert objects that point at each
    /// other in any order.
    static func columnDefinition(_ r: Relationship) -> String {
        "\(SchemaNaming.quoted(r.name)) INTEGER REFERENCES \(SchemaNaming.quoted(r.destination))(\(SchemaNaming.quoted(SchemaNaming.primaryKey))) DEFERRABLE INITIALLY DEFERRED"
    }

    static func quotedName(_ full: String) -> String { SchemaNaming.quoted(full) }
    static let integerType = "INTEGER"
    static let joinTableOptions = " WITHOUT ROWID"

    /// AUTOINCREMENT: a number is never used twice, and one reserved by fetchd (protocol.md §5)
    /// is never taken by a plain client's insert.
    static func primaryKeyColumn(_ e: Entity) -> (definition: String, before: String?) {
        ("\(SchemaNaming.quoted(SchemaNaming.primaryKey)) INTEGER PRIMARY KEY AUTOINCREMENT", nil)
    }

    static func dropTable(_ table: String) -> String { "DROP TABLE IF EXISTS \(SchemaNaming.quoted(table))" }

    /// Everything a fresh store needs for `model`.
    static func create(_ model: ObjectModel) -> [String] { tables(model) }
}
