import Model
import SQLite

extension SQLiteStore {
    /// `history(after:limit:)` for a client's reading: unlike a merge's reading, it leaves
    /// `hasExternalChanges()` as it was, so the watcher still merges what is new; and it reads
    /// every commit, past the held snapshot (on the second connection).
    public func readHistory(after token: Int64, limit: Int) throws(EngineError) -> [HistoryTransaction] {
        let seen = seenDataVersion
        defer { seenDataVersion = seen }
        return try history(after: token, limit: limit, on: upkeepSession())
    }

    public func firstToken(notBefore time: Double) throws(EngineError) -> Int64 {
        try firstHistoryToken(notBefore: time)
    }

    public func purgeHistory(before token: Int64, force: Bool = false) throws(EngineError) -> Int {
        try purgeHistoryRows(before: token, force: force)
    }

    func inWriteTransaction<T>(_ db: Connection, _ what: String, _ body: (Connection) throws -> T)
        throws(EngineError) -> T
    {
        try beginImmediate(db, what)
        do {
            let result = try body(db)
            try db.execute("COMMIT")
            return result
        } catch {
            try? db.execute("ROLLBACK")
            throw Self.storeError(error, what)
        }
    }

    func reading<T>(_ db: Connection, _ what: String, _ body: (Connection) throws -> T) throws(EngineError) -> T {
        do { return try body(db) } catch { throw Self.storeError(error, what) }
    }
}

extension SQLiteStore {
    func writeSession() throws(EngineError) -> Connection { try connection }

    /// A second connection to a file does not go stale.
    func onUpkeepSession<T>(_ body: (Connection) throws(EngineError) -> T) throws(EngineError) -> T {
        try body(upkeepSession())
    }
}
