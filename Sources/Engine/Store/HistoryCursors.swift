import Model
import SQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long the history is kept (protocol.md §5, "Pruning"). A row goes once it is older
/// than `maxAge` or beyond the newest `maxRows`, and only when every live cursor has read it:
/// a cursor whose heartbeat is older than `staleAfter` no longer holds pruning back.
public struct HistoryRetention: Sendable {
    public var maxAge: Double = 7 * 86_400
    public var maxRows: Int64 = 100_000
    public var staleAfter: Double = 3_600
    /// A moved cursor is recorded at most this often (a lagging one only keeps more).
    public var cursorInterval: Double = 0
    /// A store that merges nothing still refreshes its heartbeat this often (while watching).
    public var heartbeatInterval: Double = 60
    /// Pruning runs inside a save at most this often.
    public var pruneInterval: Double = 60
    public init() {}

    /// The token below which an unforced prune may delete: rows older than `maxAge` (those
    /// below `firstYoung`) or beyond the newest `maxRows` (tokens are dense), and only those
    /// every live cursor has read.
    func pruneLimit(before: Int64, newest: Int64, firstYoung: Int64?, oldestLiveCursor: Int64) -> Int64 {
        let retained = max(firstYoung ?? newest + 1, newest - maxRows + 1)
        return min(before, retained, oldestLiveCursor + 1)
    }
}

/// What the upkeep remembers between saves.
struct HistoryUpkeep {
    var cursorToken: Int64 = -1
    var cursorTime: Double = 0
    var pruneTime: Double = 0

    /// Whether the cursor should be recorded now: it moved and the last record is older than
    /// `cursorInterval`, or the heartbeat is due.
    func cursorDue(_ mergeCursor: Int64, now: Double, _ retention: HistoryRetention) -> Bool {
        let moved = cursorToken != mergeCursor && now - cursorTime >= retention.cursorInterval
        return moved || now - cursorTime >= retention.heartbeatInterval
    }
}

extension SQLiteStore {
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Inside a save's transaction, before its COMMIT: records this store's cursor when due
    /// and prunes when due, so neither costs a transaction of its own.
    func keepHistory(_ db: Connection) throws {
        let now = Self.now()
        if upkeep.cursorDue(mergeCursor, now: now, retention) { try writeCursor(db, now) }
        if now - upkeep.pruneTime >= retention.pruneInterval {
            upkeep.pruneTime = now
            _ = try prune(db, before: .max, now: now, force: false)
        }
    }

    private func writeCursor(_ db: Connection, _ now: Double) throws {
        try db.prepare(
            "INSERT OR REPLACE INTO \"\(HistorySchema.cursors)\" (consumer, token, heartbeat) VALUES (?, ?, ?)"
        ).run([.text(origin), .integer(mergeCursor), .real(now)])
        upkeep.cursorToken = mergeCursor
        upkeep.cursorTime = now
    }

    /// After a merge (or while idle): records the cursor when it moved and the last record is
    /// older than `cursorInterval`, or when the heartbeat is due. Never waits for the write
    /// lock: when another writer holds it, the record waits for the next call.
    public func recordCursorIfDue() {
        guard !isWriting, isOpen else { return }
        let now = Self.now()
        guard upkeep.cursorDue(mergeCursor, now: now, retention), let db = try? upkeepConnection() else { return }
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

    /// The oldest token a live cursor has merged up to: other stores' as recorded, this
    /// store's as it is now.
    func oldestLiveCursor(_ db: Connection, now: Double) throws -> Int64 {
        let s = try db.prepare(
            "SELECT min(token) FROM \"\(HistorySchema.cursors)\" WHERE heartbeat >= ? AND consumer != ?")
        defer { s.reset() }
        try s.bind(.real(now - retention.staleAfter), at: 1)
        try s.bind(.text(origin), at: 2)
        _ = try s.step()
        return min(mergeCursor, s.isNull(0) ? .max : s.int64(0))
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

    /// Deletes history rows below `before` that the retention lets go and, unless `force`,
    /// that every live cursor has read. Returns how many rows went.
    func prune(_ db: Connection, before: Int64, now: Double, force: Bool) throws -> Int {
        let h = "\"\(HistorySchema.history)\""
        var limit = before
        if !force {
            // Retention: older than maxAge or beyond the newest maxRows (tokens are dense).
            let newest = try db.prepare("SELECT coalesce(max(seq), 0) FROM \(h)")
            _ = try newest.step()
            let maxSeq = newest.int64(0)
            newest.reset()
            let young = try db.prepare(
                """
                SELECT h.seq FROM \(h) h LEFT JOIN "\(HistorySchema.transactions)" t ON t.token = h.txn
                WHERE coalesce(h.time, t.time, 0) >= ? ORDER BY h.seq LIMIT 1
                """)
            try young.bind(.real(now - retention.maxAge), at: 1)
            let firstYoung: Int64? = try young.step() ? young.int64(0) : nil
            young.reset()
            limit = retention.pruneLimit(
                before: limit, newest: maxSeq, firstYoung: firstYoung,
                oldestLiveCursor: try oldestLiveCursor(db, now: now))
        }
        let delete = try db.prepare("DELETE FROM \(h) WHERE seq < ? AND seq < (SELECT max(seq) FROM \(h))")
        try delete.run([.integer(limit)])
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
