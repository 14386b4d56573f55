import Model
import SQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SQLiteStore {
    /// The token of the newest committed history row (0 when there is none): where a reader
    /// that has everything up to now starts.
    public var currentToken: Int64 {
        get throws(EngineError) { try currentToken(on: connection) }
    }

    /// The newest token committed, past the held snapshot (ReadSnapshot.swift) if any.
    public var newestToken: Int64 {
        get throws(EngineError) { try currentToken(on: upkeepSession()) }
    }

    func currentToken(on db: Connection) throws(EngineError) -> Int64 {
        do {
            let s = try db.prepare("SELECT coalesce(max(seq), 0) FROM \"\(HistorySchema.history)\"")
            defer { s.reset() }
            _ = try s.step()
            return s.int64(0)
        } catch { throw Self.storeError(error, "reading the history") }
    }

    /// Whether any other connection (this process or another) committed to the file since
    /// the history was last read here: one `PRAGMA data_version`, microseconds, so it can be
    /// polled. Own commits do not count.
    public func hasExternalChanges() throws(EngineError) -> Bool {
        // Inside a write the lock holds data_version still: the value read at its BEGIN.
        if let version = writeDataVersion { return version != seenDataVersion }
        // A held snapshot's data_version is the one read when it began (no statement needed).
        if snapshotHeld { return snapshotDataVersion != seenDataVersion }
        do { return try Self.dataVersion(connection) != seenDataVersion } catch {
            throw Self.storeError(error, "reading the data version")
        }
    }

    /// Committed transactions after `token`, oldest first, at most `limit` (a transaction is
    /// never split). Rows of entities the model does not know are left out (their token
    /// still counts).
    public func history(after token: Int64, limit: Int = .max) throws(EngineError) -> [HistoryTransaction] {
        try history(after: token, limit: limit, on: connection)
    }

    func history(after token: Int64, limit: Int, on db: Connection) throws(EngineError) -> [HistoryTransaction] {
        do {
            let version = try Self.dataVersion(db)
            let s = try db.prepare(
                """
                SELECT h.seq, h.txn, h.time, h.entity, h.pk, h.op, h.keys, t.author, t.origin, t.time, h.version, h.old, h.other
                FROM "\(HistorySchema.history)" h LEFT JOIN "\(HistorySchema.transactions)" t ON t.token = h.txn
                WHERE h.seq > ? ORDER BY h.seq
                """)
            defer { s.reset() }
            try s.bind(.integer(token), at: 1)
            var assembler = HistoryAssembler(limit: limit, entities: tables, joins: joins)
            while try s.step() {
                let recorded = RecordedHistoryRow(
                    seq: s.int64(0), txn: s.isNull(1) ? nil : s.int64(1), time: s.isNull(2) ? nil : s.double(2),
                    table: s.text(3), pk: s.int64(4), op: s.text(5), keys: s.isNull(6) ? nil : s.text(6),
                    author: s.isNull(7) ? nil : s.text(7), origin: s.isNull(8) ? nil : s.text(8),
                    txnTime: s.isNull(9) ? nil : s.double(9), version: s.isNull(10) ? nil : s.int64(10),
                    old: s.isNull(11) ? nil : s.text(11), other: s.isNull(12) ? nil : s.int64(12))
                guard assembler.add(recorded) else { break }
            }
            let out = assembler.transactions
            if out.count < limit { seenDataVersion = version }
            return out
        } catch { throw Self.storeError(error, "reading the history") }
    }
}
