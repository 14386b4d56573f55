import Model
import SQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SQLiteStore: StoreDialect {
    func upsertCursor(_ db: Connection, token: Int64, heartbeat: Double) throws {
        try db.prepare(
            "INSERT OR REPLACE INTO \"\(HistorySchema.cursors)\" (consumer, token, heartbeat) VALUES (?, ?, ?)"
        ).run([.text(origin), .integer(token), .real(heartbeat)])
    }

    func otherCursorsMinimum(_ db: Connection, aliveSince heartbeat: Double) throws -> Int64? {
        let s = try db.prepare(
            "SELECT min(token) FROM \"\(HistorySchema.cursors)\" WHERE heartbeat >= ? AND consumer != ?")
        defer { s.reset() }
        try s.bind(.real(heartbeat), at: 1)
        try s.bind(.text(origin), at: 2)
        _ = try s.step()
        return s.isNull(0) ? nil : s.int64(0)
    }

    func newestToken(_ db: Connection) throws -> Int64 {
        let s = try db.prepare("SELECT coalesce(max(seq), 0) FROM \"\(HistorySchema.history)\"")
        defer { s.reset() }
        _ = try s.step()
        return s.int64(0)
    }

    func firstToken(_ db: Connection, notBefore time: Double) throws -> Int64? {
        let s = try db.prepare(
            """
            SELECT h.seq FROM "\(HistorySchema.history)" h LEFT JOIN "\(HistorySchema.transactions)" t ON t.token = h.txn
            WHERE coalesce(h.time, t.time, 0) >= ? ORDER BY h.seq LIMIT 1
            """)
        defer { s.reset() }
        try s.bind(.real(time), at: 1)
        return try s.step() ? s.int64(0) : nil
    }

    func deleteHistory(_ db: Connection, below limit: Int64) throws -> Int {
        let h = "\"\(HistorySchema.history)\""
        try db.prepare("DELETE FROM \(h) WHERE seq < ? AND seq < (SELECT max(seq) FROM \(h))").run([.integer(limit)])
        let deleted = db.changes
        if deleted > 0 {
            let t = "\"\(HistorySchema.transactions)\""
            try db.execute(
                """
                DELETE FROM \(t) WHERE token < (SELECT max(token) FROM \(t))
                AND token NOT IN (SELECT txn FROM \(h) WHERE txn IS NOT NULL)
                """)
        }
        return deleted
    }
}

extension SQLiteStore {
    /// After a merge (or while idle): records the cursor when it moved and the last record is
    /// older than `cursorInterval`, or when the heartbeat is due. Never waits for the write
    /// lock: when another writer holds it, the record waits for the next call.
    public func recordCursorIfDue() {
        guard !isWriting, isOpen else { return }
        let now = StoreClock.now()
        guard upkeep.cursorDue(mergeCursor, now: now, retention), let db = try? upkeepSession() else { return }
        try? db.execute("PRAGMA busy_timeout=0")
        defer { try? db.execute("PRAGMA busy_timeout=\(max(0, busyTimeoutMilliseconds))") }
        guard (try? db.execute("BEGIN IMMEDIATE")) != nil else { return }
        do {
            try writeCursor(db, now)
            try db.execute("COMMIT")
            // Own commits leave data_version as it is: nothing to merge because of this one.
        } catch {
            try? db.execute("ROLLBACK")
        }
    }

    /// A store closing holds nothing back any more.
    func dropCursor() {
        guard upkeep.cursorToken >= 0, let db = try? connection else { return }
        try? db.execute("PRAGMA busy_timeout=100")
        try? db.prepareUncached("DELETE FROM \"\(HistorySchema.cursors)\" WHERE consumer = ?").run([.text(origin)])
    }

    /// The oldest token still in the history (nil when it is empty).
    public var oldestToken: Int64? {
        get throws(EngineError) {
            do {
                let s = try connection.prepare("SELECT min(seq) FROM \"\(HistorySchema.history)\"")
                defer { s.reset() }
                _ = try s.step()
                return s.isNull(0) ? nil : s.int64(0)
            } catch { throw Self.storeError(error, "reading the history") }
        }
    }

    /// Whether rows after `token` were pruned before being read: tokens are dense (each row
    /// takes max + 1 and the newest row is never pruned), so a hole shows at the start.
    public func historyGap(after token: Int64) throws(EngineError) -> Bool {
        guard let oldest = try oldestToken else { return false }
        return oldest > token + 1
    }
}
