import Model

/// The DDL a light migration (`MigrationPlan`) writes, per SQL dialect.
protocol SchemaDDL {
    static func createTable(_ e: Entity) -> String
    static func indexes(_ e: Entity) -> [String]
    static func createIndex(_ entity: String, _ column: String) -> String
    /// An attribute's index (a dialect may index text in the order its queries sort by).
    static func createIndex(_ entity: String, _ attribute: Attribute) -> String
    static func dropIndex(_ entity: String, _ column: String) -> String
    static func createJoinTable(entity: String, _ r: Relationship) -> [String]
    static func columnDefinition(_ a: Attribute) -> String
    static func columnDefinition(_ r: Relationship) -> String
    static func dropTable(_ table: String) -> String
}

extension SchemaDDL {
    static func createIndex(_ entity: String, _ attribute: Attribute) -> String { createIndex(entity, attribute.name) }

    /// Indexes of an entity: its `indexed` attributes and its foreign keys.
    static func indexes(_ e: Entity) -> [String] {
        e.attributes.filter(\.indexed).map { createIndex(e.name, $0) }
            + e.relationships.filter(SchemaNaming.hasColumn).map { createIndex(e.name, $0.name) }
    }

    /// What drops the indexes `indexes(e)` creates (a bulk load builds them again after).
    static func dropIndexes(_ e: Entity) -> [String] {
        (e.attributes.filter(\.indexed).map(\.name) + e.relationships.filter(SchemaNaming.hasColumn).map(\.name))
            .map { dropIndex(e.name, $0) }
    }
}

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

    static func createTable(_ e: Entity) -> String {
        // AUTOINCREMENT: a number is never used twice, and one reserved by fetchd (protocol.md §5)
        // is never taken by a plain client's insert.
        var columns = [
            "\(SchemaNaming.quoted(SchemaNaming.primaryKey)) INTEGER PRIMARY KEY AUTOINCREMENT",
            "\(SchemaNaming.quoted(SchemaNaming.version)) INTEGER NOT NULL DEFAULT 1",
        ]
        columns += e.attributes.map(columnDefinition)
        columns += e.relationships.filter(SchemaNaming.hasColumn).map(columnDefinition)
        return "CREATE TABLE \(SchemaNaming.quoted(e.name)) (\(columns.joined(separator: ", ")))"
    }

    static func indexName(_ entity: String, _ column: String) -> String { "_idx_\(entity)_\(column)" }

    static func createIndex(_ entity: String, _ column: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(SchemaNaming.quoted(indexName(entity, column))) ON \(SchemaNaming.quoted(entity))(\(SchemaNaming.quoted(column)))"
    }

    static func dropIndex(_ entity: String, _ column: String) -> String {
        "DROP INDEX IF EXISTS \(SchemaNaming.quoted(indexName(entity, column)))"
    }

    /// The join table of a many-to-many pair; created once for both sides.
    static func createJoinTable(entity: String, _ r: Relationship) -> [String] {
        let (table, selfColumn, otherColumn) = SchemaNaming.joinTable(entity: entity, relationship: r)
        let (aEntity, bEntity) = selfColumn == "a" ? (entity, r.destination) : (r.destination, entity)
        _ = otherColumn
        let pk = SchemaNaming.quoted(SchemaNaming.primaryKey)
        func ref(_ e: String) -> String {
            "INTEGER NOT NULL REFERENCES \(SchemaNaming.quoted(e))(\(pk)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
        }
        let t = SchemaNaming.quoted(table)
        return [
            "CREATE TABLE IF NOT EXISTS \(t) (\"a\" \(ref(aEntity)), \"b\" \(ref(bEntity)), PRIMARY KEY (\"a\", \"b\")) WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS \(SchemaNaming.quoted("_idx\(table)_b")) ON \(t)(\"b\", \"a\")",
        ]
    }

    static func dropTable(_ table: String) -> String { "DROP TABLE IF EXISTS \(SchemaNaming.quoted(table))" }

    /// Everything a fresh store needs for `model`.
    static func create(_ model: ObjectModel) -> [String] {
        var sql: [String] = []
        for e in model.entities {
            sql.append(createTable(e))
            sql += indexes(e)
        }
        for e in model.entities {
            for r in e.relationships where SchemaNaming.isManyToMany(r, in: model) {
                sql += createJoinTable(entity: e.name, r)
            }
        }
        return sql
    }
}
