import Model
import SQLite

extension SQLiteStore {
    /// `history(after:limit:)` for a client's reading: unlike a merge's reading, it leaves
    /// `hasExternalChanges()` as it was, so the watcher still merges what is new; and it reads
    /// every commit, past the held snapshot (on the second connection).
    public func readHistory(after token: Int64, limit: Int) throws(EngineError) -> [HistoryTransaction] {
        let seen = seenDataVersion
        defer { seenDataVersion = seen }
        return try history(after: token, limit: limit, on: upkeepConnection())
    }

    /// The first token committed at or after `time` (unix seconds); past the newest when
    /// every row is older. Purging before it purges what was committed before `time`.
    public func firstToken(notBefore time: Double) throws(EngineError) -> Int64 {
        do {
            let db = try connection
            let h = "\"\(HistorySchema.history)\""
            let s = try db.prepare(
                """
                SELECT h.seq FROM \(h) h LEFT JOIN "\(HistorySchema.transactions)" t ON t.token = h.txn
                WHERE coalesce(h.time, t.time, 0) >= ? ORDER BY h.seq LIMIT 1
                """)
            defer { s.reset() }
            try s.bind(.real(time), at: 1)
            if try s.step() { return s.int64(0) }
            return try currentToken + 1
        } catch let e as EngineError { throw e } catch { throw Self.storeError(error, "reading the history") }
    }

    /// Deletes the history rows with a token below `before`, and the fetchd transactions no
    /// remaining row refers to. The newest row always stays: new tokens are max + 1, so they
    /// keep rising and a reader's cursor never sees a token used twice. Unless `force`, rows
    /// a live cursor (HistoryCursors.swift) has not read yet stay too; a forced purge leaves
    /// such a reader a gap, which it answers with a full refetch. Returns how many history
    /// rows were deleted.
    public func purgeHistory(before token: Int64, force: Bool = false) throws(EngineError) -> Int {
        guard !isWriting else {
            throw EngineError(.storeError, "a save is in progress", [("path", .string(path))])
        }
        let db = try upkeepConnection()
        try beginImmediate(db, "purging the history")
        do {
            var limit = token
            if !force { limit = min(limit, try oldestLiveCursor(db, now: Self.now()) + 1) }
            let deleted = try prune(db, before: limit, now: Self.now(), force: true)
            try db.execute("COMMIT")
            return deleted
        } catch {
            try? db.execute("ROLLBACK")
            throw Self.storeError(error, "purging the history")
        }
    }
}
