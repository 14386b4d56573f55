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
        let db = try connection
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
