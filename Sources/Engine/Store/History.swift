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
        get throws(EngineError) { try currentToken(on: connection) }
    }

    /// The newest token committed, past the held snapshot (ReadSnapshot.swift) if any.
    public var newestToken: Int64 {
        get throws(EngineError) { try currentToken(on: upkeepConnection()) }
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

    /// Unique enough to tell processes and stores apart on one file: pid, clock, random.
    static func newOrigin() -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return "\(getpid())-\(t.tv_sec)-\(t.tv_nsec)-\(UInt32.random(in: 0...UInt32.max))"
    }
}

/// One `_fetchd_history` row joined with its `_fetchd_transactions` row, as either store reads it.
struct RecordedHistoryRow {
    var seq: Int64
    var txn: Int64?
    var time: Double?
    var table: String
    var pk: Int64
    var op: String
    var keys: String?
    var author: String?
    var origin: String?
    var txnTime: Double?
    var version: Int64?
    var old: String?
    var other: Int64?
}

/// Groups history rows (in `seq` order) into transactions, as `history(after:limit:)` answers
/// them: one per fetchd transaction, one per run of plain-client rows; never splits one.
struct HistoryAssembler {
    let limit: Int
    let entities: [String: EntityTable]
    let joins: [String: (a: (entity: String, relationship: String), b: (entity: String, relationship: String))]
    private(set) var transactions: [HistoryTransaction] = []
    private var currentTxn: Int64? = nil

    init(
        limit: Int, entities: [String: EntityTable],
        joins: [String: (a: (entity: String, relationship: String), b: (entity: String, relationship: String))]
    ) {
        self.limit = limit
        self.entities = entities
        self.joins = joins
    }

    /// Adds one row; false when it starts a transaction beyond `limit` (stop reading).
    mutating func add(_ r: RecordedHistoryRow) -> Bool {
        if transactions.isEmpty || r.txn != currentTxn {
            if transactions.count == limit { return false }
            currentTxn = r.txn
            transactions.append(
                HistoryTransaction(
                    token: r.seq, author: r.author, origin: r.origin, time: r.txn == nil ? r.time : r.txnTime,
                    changes: []))
        }
        let last = transactions.count - 1
        transactions[last].token = r.seq
        guard let op = HistoryChange.Operation(rawValue: r.op) else { return true }
        let row = HistoryRow(
            seq: r.seq, table: r.table, pk: r.pk, op: op, version: r.version, old: r.old, other: r.other)
        if entities[r.table] != nil {
            let keys = r.keys?.split(separator: ",").map(String.init)
            for n in row.numbers {
                transactions[last].changes.append(
                    HistoryChange(id: ObjectID(entity: r.table, number: n), operation: op, keys: keys))
            }
        } else if let join = joins[r.table], let other = row.other {
            // A link added or removed: both objects' to-many relationships changed.
            transactions[last].changes.append(
                HistoryChange(
                    id: ObjectID(entity: join.a.entity, number: row.pk), operation: .update,
                    keys: [join.a.relationship]))
            transactions[last].changes.append(
                HistoryChange(
                    id: ObjectID(entity: join.b.entity, number: other), operation: .update,
                    keys: [join.b.relationship]))
        } else {
            transactions[last].unknown.append(ObjectID(entity: r.table, number: row.pk))
            return true
        }
        transactions[last].rows.append(row)
        return true
    }
}
