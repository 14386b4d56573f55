import Model
import SQLite

extension SQLiteStore {
    /// The model an existing store file records (protocol.md §5: the metadata table keeps it),
    /// read without opening the store: what `fetchd query/watch/exec --store PATH` open the
    /// file with when no `--model` is given. The file must exist (SQLite would create it).
    public static func recordedModel(path: String) throws(EngineError) -> ObjectModel {
        let db: Connection
        do {
            db = try Connection(path: path)
            // Another process opening or writing the file holds its lock for moments: wait
            // as the store's own connection does rather than fail at once.
            try db.execute("PRAGMA busy_timeout=5000")
        } catch { throw storeError(error, "cannot open \(path)") }
        defer { db.close() }
        let notAStore = EngineError(
            .storeError, "\(path) is not a fetchd store (it records no model)",
            [("path", .string(path)), ("recordsModel", .bool(false))])
        do {
            let s = try db.prepareUncached("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
            try s.bind(.text(SchemaNaming.metadataTable), at: 1)
            guard try s.step(), s.int64(0) == 1 else { throw notAStore }
            let m = try db.prepareUncached(
                "SELECT value FROM \(SchemaNaming.quoted(SchemaNaming.metadataTable)) WHERE key = 'model'")
            guard try m.step(), let model = ModelArchive.decode(m.text(0)) else { throw notAStore }
            return model
        } catch let e as EngineError {
            throw e
        } catch {
            throw storeError(error, "cannot read the model of \(path)")
        }
    }
}
