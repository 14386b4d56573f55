import Model
import SQLite

extension Store {
    /// `history(after:limit:)` for a client's reading: unlike a merge's reading, it leaves
    /// `hasExternalChanges()` as it was, so the watcher still merges what is new.
    public func readHistory(after token: Int64, limit: Int) throws(EngineError) -> [HistoryTransaction] {
        let seen = seenDataVersion
        defer { seenDataVersion = seen }
        return try history(after: token, limit: limit)
    }

    /// Deletes the history rows with a token below `token`, and the fetchd transactions no
    /// remaining row refers to. The newest row of each table always stays: new tokens are
    /// max + 1, so they keep rising and a reader's cursor never sees a token used twice.
    /// Returns how many history rows were deleted. Readers whose cursor is below `token`
    /// (another process) lose what was deleted: purge only what every reader has merged.
    public func purgeHistory(before token: Int64) throws(EngineError) -> Int {
        guard !isWriting else {
            throw EngineError(.storeError, "a save is in progress", [("path", .string(path))])
        }
        let db = try connection
        try beginImmediate(db, "purging the history")
        do {
            let h = "\"\(HistorySchema.history)\""
            let t = "\"\(HistorySchema.transactions)\""
            let delete = try db.prepareUncached("DELETE FROM \(h) WHERE seq < ? AND seq < (SELECT max(seq) FROM \(h))")
            try delete.bind(.integer(token), at: 1)
            _ = try delete.step()
            let deleted = db.changes
            try db.execute(
                """
                DELETE FROM \(t) WHERE token < (SELECT max(token) FROM \(t))
                AND token NOT IN (SELECT txn FROM \(h) WHERE txn IS NOT NULL)
                """)
            try db.execute("COMMIT")
            return deleted
        } catch {
            try? db.execute("ROLLBACK")
            throw Self.storeError(error, "purging the history")
        }
    }
}
