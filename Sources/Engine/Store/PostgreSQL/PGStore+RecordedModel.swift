import Model
import Postgres

extension PGStore {
    /// The model a PostgreSQL dataset records in its metadata table, read without opening
    /// the store: what `fetchd query/watch/exec --store URL` open it with when no `--model`
    /// is given (as `SQLiteStore.recordedModel` for a file).
    public static func recordedModel(url: String, schema: String? = nil) throws(EngineError) -> ObjectModel {
        let (conninfo, urlSchema) = PGURL.splitSchema(url)
        let schema = schema ?? urlSchema ?? "fetchd"
        let shown = PGURL.withoutPassword(conninfo)
        let db: PGConnection
        do { db = try PGConnection(conninfo) } catch {
            throw EngineError(
                .storeUnavailable, "cannot connect to \(shown): \(error.message)",
                [("path", .string(shown)), ("message", .string(error.message))])
        }
        defer { db.close() }
        let notAStore = EngineError(
            .storeError, "schema \(schema) of \(shown) is not a fetchd store (it records no model)",
            [("path", .string(shown)), ("schema", .string(schema)), ("recordsModel", .bool(false))])
        let text: String?
        do {
            // to_regclass answers NULL for a missing schema or table instead of failing.
            let table = db.quoteIdentifier(schema) + "." + db.quoteIdentifier(SchemaNaming.metadataTable)
            let exists = try db.exec("SELECT to_regclass($1) IS NOT NULL", [.text(table)])
            guard exists.rows.first?.first == "t" else { throw notAStore }
            text = try db.exec("SELECT value FROM \(table) WHERE key = 'model'").rows.first?.first ?? nil
        } catch let e as EngineError {
            throw e
        } catch {
            throw EngineError(.storeError, "cannot read the model of \(shown): \(error)", [("path", .string(shown))])
        }
        guard let text, let model = ModelArchive.decode(text) else { throw notAStore }
        return model
    }
}
