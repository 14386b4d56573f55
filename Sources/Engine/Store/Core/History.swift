import Model

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
