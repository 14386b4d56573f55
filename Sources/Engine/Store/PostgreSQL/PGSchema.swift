import Model
import Predicates

/// The DDL of a model in a PostgreSQL schema: the same tables, columns and indexes as
/// SQLite's `Schema` (names from `SchemaNaming`), with PostgreSQL types laid out as
/// `PGValueEncoding` reads them, and one sequence per entity for its ids. Statements run
/// with the store's schema first in the search path.
enum PGSchema: SchemaDDL {
    static let q = SchemaNaming.quoted

    /// The sequence handing out an entity's numbers (`reserveID`, and a plain client's
    /// insert that leaves `_pk` out).
    static func sequence(_ entity: String) -> String { name("_fetchd_id_" + entity) }

    /// PostgreSQL keeps 63 bytes of an identifier: a longer name of the store's own (join
    /// table, sequence, index, constraint, trigger, function) keeps its start and gets a hash
    /// of the whole, so two long names never become one. Model names are at most 64
    /// characters; an entity or attribute named with all 64 is cut by PostgreSQL alike
    /// wherever it is used.
    static func name(_ full: String) -> String {
        guard full.utf8.count > 63 else { return full }
        var hash: UInt32 = 2_166_136_261
        for b in full.utf8 { hash = (hash ^ UInt32(b)) &* 16_777_619 }
        let hex = String(hash, radix: 16)
        return String(decoding: full.utf8.prefix(54), as: UTF8.self) + "_"
            + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `name(full)` quoted.
    static func qn(_ full: String) -> String { q(name(full)) }

    static func columnDefinition(_ a: Attribute) -> String {
        "\(q(a.name)) \(PGValueEncoding.columnType(a.type))"
    }

    /// The column alone: its foreign key comes from `foreignKeys` once every table exists.
    static func columnDefinition(_ r: Relationship) -> String { "\(q(r.name)) bigint" }

    /// The foreign key of every to-one column that lacks one (after creating or migrating).
    /// No ON DELETE action, as in SQLite: the contexts apply delete rules themselves; the
    /// check waits for COMMIT so one save may insert objects pointing at each other.
    static func foreignKeys(_ model: ObjectModel) -> [String] {
        model.entities.flatMap { e in
            e.relationships.filter(SchemaNaming.hasColumn).map { r in
                let name = Self.name("_fk_\(e.name)_\(r.name)")
                return """
                    DO $fetchd$ BEGIN
                      IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = \(HistoryNaming.literal(name))
                        AND connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())) THEN
                        ALTER TABLE \(q(e.name)) ADD CONSTRAINT \(q(name)) FOREIGN KEY (\(q(r.name)))
                          REFERENCES \(q(r.destination))(\(q(SchemaNaming.primaryKey))) DEFERRABLE INITIALLY DEFERRED;
                      END IF;
                    END $fetchd$
                    """
            }
        }
    }

    static func quotedName(_ full: String) -> String { qn(full) }
    static let integerType = "bigint"
    static let joinTableOptions = ""

    /// Numbered by the entity's own sequence, made with the table.
    static func primaryKeyColumn(_ e: Entity) -> (definition: String, before: String?) {
        let seq = q(sequence(e.name))
        return (
            "\(q(SchemaNaming.primaryKey)) bigint PRIMARY KEY DEFAULT nextval(\(HistoryNaming.literal(seq)))",
            "CREATE SEQUENCE IF NOT EXISTS \(seq)"
        )
    }

    /// In the order `PGQuery` sorts by (text in `COLLATE "C"`, nil first ascending and last
    /// descending), so an ordered fetch walks the index either way instead of sorting.
    static func createIndex(_ entity: String, _ attribute: Attribute) -> String {
        let text = attribute.type == .string || attribute.type == .uuid
        let key = q(attribute.name) + (text ? " COLLATE \"C\"" : "") + " NULLS FIRST"
        return "CREATE INDEX IF NOT EXISTS \(qn(indexName(entity, attribute.name))) ON \(q(entity)) (\(key))"
    }

    /// CASCADE: foreign keys of other tables pointing at it go with it (SQLite keeps them dangling).
    static func dropTable(_ table: String) -> String {
        // Join tables (`_join_…`; model names never start with `_`) may carry a shortened name.
        "DROP TABLE IF EXISTS \(table.hasPrefix("_join_") ? qn(table) : q(table)) CASCADE; DROP SEQUENCE IF EXISTS \(q(sequence(table)))"
    }

    /// Everything a fresh store needs for `model` (history and triggers: `PGHistorySchema`).
    static func create(_ model: ObjectModel) -> [String] {
        ["CREATE TABLE \(q(SchemaNaming.metadataTable)) (key text PRIMARY KEY, value text)"] + tables(model)
            + foreignKeys(model)
    }
}
