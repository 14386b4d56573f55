import Model

/// The DDL of a model (`create`, and what a light migration, `MigrationPlan`, writes):
/// the same tables, columns, indexes and join tables in both dialects, named by
/// `SchemaNaming`; each dialect gives its types, quoting and the primary key's column.
protocol SchemaDDL {
    /// A name of the store's own, quoted (a dialect may shorten long ones).
    static func quotedName(_ full: String) -> String
    /// The integer type of keys and versions.
    static var integerType: String { get }
    /// The primary key column of an entity's table, and what must exist before the table.
    static func primaryKeyColumn(_ e: Entity) -> (definition: String, before: String?)
    /// What follows a join table's definition (SQLite: WITHOUT ROWID).
    static var joinTableOptions: String { get }
    /// An attribute's index (a dialect may index text in the order its queries sort by).
    static func createIndex(_ entity: String, _ attribute: Attribute) -> String
    static func columnDefinition(_ a: Attribute) -> String
    static func columnDefinition(_ r: Relationship) -> String
    static func dropTable(_ table: String) -> String
}

extension SchemaDDL {
    static func createIndex(_ entity: String, _ attribute: Attribute) -> String { createIndex(entity, attribute.name) }

    static func indexName(_ entity: String, _ column: String) -> String { "_idx_\(entity)_\(column)" }

    static func createIndex(_ entity: String, _ column: String) -> String {
        let q = SchemaNaming.quoted
        return "CREATE INDEX IF NOT EXISTS \(quotedName(indexName(entity, column))) ON \(q(entity)) (\(q(column)))"
    }

    static func dropIndex(_ entity: String, _ column: String) -> String {
        "DROP INDEX IF EXISTS \(quotedName(indexName(entity, column)))"
    }

    static func createTable(_ e: Entity) -> String {
        let q = SchemaNaming.quoted
        let key = primaryKeyColumn(e)
        var columns = [key.definition, "\(q(SchemaNaming.version)) \(integerType) NOT NULL DEFAULT 1"]
        columns += e.attributes.map(columnDefinition)
        columns += e.relationships.filter(SchemaNaming.hasColumn).map(columnDefinition)
        return (key.before.map { $0 + "; " } ?? "") + "CREATE TABLE \(q(e.name)) (\(columns.joined(separator: ", ")))"
    }

    /// The join table of a many-to-many pair, created once for both sides; its rows go with
    /// either object (ON DELETE CASCADE), checked at COMMIT like every foreign key.
    static func createJoinTable(entity: String, _ r: Relationship) -> [String] {
        let q = SchemaNaming.quoted
        let (table, selfColumn, _) = SchemaNaming.joinTable(entity: entity, relationship: r)
        let (aEntity, bEntity) = selfColumn == "a" ? (entity, r.destination) : (r.destination, entity)
        func ref(_ e: String) -> String {
            "\(integerType) NOT NULL REFERENCES \(q(e))(\(q(SchemaNaming.primaryKey))) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
        }
        let t = quotedName(table)
        return [
            "CREATE TABLE IF NOT EXISTS \(t) (\"a\" \(ref(aEntity)), \"b\" \(ref(bEntity)), PRIMARY KEY (\"a\", \"b\"))\(joinTableOptions)",
            "CREATE INDEX IF NOT EXISTS \(quotedName("_idx\(table)_b")) ON \(t) (\"b\", \"a\")",
        ]
    }

    /// The tables and indexes of a fresh store for `model`.
    static func tables(_ model: ObjectModel) -> [String] {
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
