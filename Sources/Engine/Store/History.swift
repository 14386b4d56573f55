import Model
import SQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One row a writer changed, as the history recorded it.
public struct HistoryChange: Equatable, Sendable {
    public enum Operation: String, Sendable {
        case insert = "I"
        case update = "U"
        case delete = "D"
    }

    public var id: ObjectID
    public var operation: Operation
    /// An update's changed keys (a join table's row: the to-many relationship); nil for an
    /// insert or delete (every key).
    public var keys: [String]?

    public init(id: ObjectID, operation: Operation, keys: [String]?) {
        self.id = id
        self.operation = operation
        self.keys = keys
    }
}

/// One `_fetchd_history` row as recorded.
struct HistoryRow {
    var seq: Int64
    /// An entity's name or a join table's.
    var table: String
    var pk: Int64
    var op: HistoryChange.Operation
    var version: Int64?
    var old: String?
    var other: Int64?

    /// An entity row's numbers: fetchd records a run of inserts as one row.
    var numbers: ClosedRange<Int64> { pk...max(pk, op == .insert ? other ?? pk : pk) }
}

/// Committed writes in commit order: one fetchd transaction, or a run of consecutive rows
/// written by plain SQLite clients (which record no transaction boundaries, so a run may
/// hold several of their commits).
public struct HistoryTransaction: Sendable {
    /// The last history row's `seq`: reading `history(after: token)` continues after it.
    public var token: Int64
    /// The saving context's `transactionAuthor`; nil for a plain client.
    public var author: String?
    /// The writing store's `origin`; nil for a plain client.
    public var origin: String?
    /// Unix seconds of the (first) write.
    public var time: Double?
    public var changes: [HistoryChange]
    /// The recorded rows, for the view before (PriorView.swift).
    var rows: [HistoryRow] = []
    /// Rows of entities the model does not have (left out of `changes`).
    public var unknown: [ObjectID] = []

    /// Written by a plain SQLite client rather than by fetchd.
    public var isExternalClient: Bool { origin == nil }
}

extension SQLiteStore {
    /// The token of the newest committed history row (0 when there is none): where a reader
    /// that has everything up to now starts.
    public var currentToken: Int64 {
        get throws(EngineError) {
            do {
                let s = try connection.prepare("SELECT coalesce(max(seq), 0) FROM \"\(HistorySchema.history)\"")
                defer { s.reset() }
                _ = try s.step()
                return s.int64(0)
            } catch { throw Self.storeError(error, "reading the history") }
        }
    }

    /// Whether any other connection (this process or another) committed to the file since
    /// the history was last read here: one `PRAGMA data_version`, microseconds, so it can be
    /// polled. Own commits do not count.
    public func hasExternalChanges() throws(EngineError) -> Bool {
        do { return try Self.dataVersion(connection) != seenDataVersion } catch {
            throw Self.storeError(error, "reading the data version")
        }
    }

    /// Committed transactions after `token`, oldest first, at most `limit` (a transaction is
    /// never split). Rows of entities the model does not know are left out (their token
    /// still counts).
    public func history(after token: Int64, limit: Int = .max) throws(EngineError) -> [HistoryTransaction] {
        do {
            let db = try connection
            let version = try Self.dataVersion(db)
            let s = try db.prepare(
                """
                SELECT h.seq, h.txn, h.time, h.entity, h.pk, h.op, h.keys, t.author, t.origin, t.time, h.version, h.old, h.other
                FROM "\(HistorySchema.history)" h LEFT JOIN "\(HistorySchema.transactions)" t ON t.token = h.txn
                WHERE h.seq > ? ORDER BY h.seq
                """)
            defer { s.reset() }
            try s.bind(.integer(token), at: 1)
            let joins = self.joins
            var out: [HistoryTransaction] = []
            var currentTxn: Int64? = nil
            while try s.step() {
                let txn: Int64? = s.isNull(1) ? nil : s.int64(1)
                if out.isEmpty || txn != currentTxn {
                    if out.count == limit { break }
                    currentTxn = txn
                    let time = txn == nil ? (s.isNull(2) ? nil : s.double(2)) : (s.isNull(9) ? nil : s.double(9))
                    out.append(
                        HistoryTransaction(
                            token: s.int64(0), author: s.isNull(7) ? nil : s.text(7),
                            origin: s.isNull(8) ? nil : s.text(8), time: time, changes: []))
                }
                out[out.count - 1].token = s.int64(0)
                let entity = s.text(3)
                guard let op = HistoryChange.Operation(rawValue: s.text(5)) else { continue }
                let row = HistoryRow(
                    seq: s.int64(0), table: entity, pk: s.int64(4), op: op,
                    version: s.isNull(10) ? nil : s.int64(10), old: s.isNull(11) ? nil : s.text(11),
                    other: s.isNull(12) ? nil : s.int64(12))
                if tables[entity] != nil {
                    let keys = s.isNull(6) ? nil : s.text(6).split(separator: ",").map(String.init)
                    for n in row.numbers {
                        out[out.count - 1].changes.append(
                            HistoryChange(
                                id: ObjectID(entity: entity, number: n),
                                operation: op, keys: keys))
                    }
                } else if let join = joins[entity], let other = row.other {
                    // A link added or removed: both objects' to-many relationships changed.
                    out[out.count - 1].changes.append(
                        HistoryChange(
                            id: ObjectID(entity: join.a.entity, number: row.pk),
                            operation: .update, keys: [join.a.relationship]))
                    out[out.count - 1].changes.append(
                        HistoryChange(
                            id: ObjectID(entity: join.b.entity, number: other),
                            operation: .update, keys: [join.b.relationship]))
                } else {
                    out[out.count - 1].unknown.append(ObjectID(entity: entity, number: row.pk))
                    continue
                }
                out[out.count - 1].rows.append(row)
            }
            if out.count < limit { seenDataVersion = version }
            return out
        } catch { throw Self.storeError(error, "reading the history") }
    }

    /// Unique enough to tell processes and stores apart on one file: pid, clock, random.
    static func newOrigin() -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return "\(getpid())-\(t.tv_sec)-\(t.tv_nsec)-\(UInt32.random(in: 0...UInt32.max))"
    }
}
