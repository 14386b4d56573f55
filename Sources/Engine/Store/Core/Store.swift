import Model
import Predicates

/// The boundary between the contexts and where objects are saved: a SQLite file
/// (`SQLiteStore`, the default) or a schema on a PostgreSQL server (`PGStore`). Contexts,
/// controllers and the server see only this; the SQL dialect, connections and the history's
/// tables stay behind it. protocol.md §5 says what every store guarantees: one transaction
/// per save, optimistic locking by row version, ids never handed out twice, and a change
/// history every writer fills, read by token.
public protocol Store: AnyObject {
    /// The file path (SQLite) or the server's URL without its password (PostgreSQL).
    var path: String { get }
    var model: ObjectModel { get }
    /// Whether opening changed the stored model (light migration).
    var migrated: Bool { get }
    /// Tells this store's transactions from other processes' in the history.
    var origin: String { get }
    /// The history token up to which external transactions were merged (ObjectGraph).
    var mergeCursor: Int64 { get set }
    /// While set, reads answer as the store was before the merged transactions.
    var overlay: [ObjectID: StoredObject?]? { get set }
    /// While set, rows a batch request read or wrote, as a read returns them: the contexts
    /// taking the batch in read them without a query each.
    var justWritten: JustWritten? { get set }
    var isOpen: Bool { get }
    /// Whether a write transaction begun by `beginWrite` is open.
    var isWriting: Bool { get }
    /// How long a write waits for another writer's lock before `storeBusy`, in milliseconds.
    var busyTimeout: Int { get set }
    /// How long the history is kept.
    var retention: HistoryRetention { get set }
    /// Whether reads between two merges come from one held read transaction (ReadSnapshot.swift).
    var readSnapshots: ReadSnapshots { get set }
    /// Another process committed between the end of this store's write and its next snapshot:
    /// that commit is to be merged before anything else reads (the graph does, and clears it).
    var owesMerge: Bool { get set }
    /// Begins a read snapshot (with `readSnapshots` on, none held and no write open).
    func holdSnapshot() throws(EngineError)
    /// Ends the held read snapshot, if any.
    func releaseSnapshot()
    /// Ends the held snapshot and begins one of the newest state.
    func renewSnapshot() throws(EngineError)
    /// Whether a read snapshot is held now.
    var holdsSnapshot: Bool { get }

    // MARK: Reading objects

    /// The object's values and version, or nil when the store has no such object.
    func read(_ id: ObjectID) throws(EngineError) -> StoredObject?
    /// The destinations of a to-many relationship of a stored object, ascending.
    func relatedIDs(of id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID]
    /// The row's version, or nil when the store has no such object.
    func version(of id: ObjectID) throws(EngineError) -> Int64?

    // MARK: Queries (compiled by the contexts; the store picks its SQL)

    /// How many saved objects of `entity` match `filter`, leaving out the id numbers in
    /// `skipping` (objects a context evaluates in memory instead).
    func count(entity: String, filter: (any ObjectFilter)?, skipping: Set<Int64>) throws(EngineError) -> Int
    /// The saved objects of `entity` matching `filter`, in `ordering`'s order then by id
    /// number (by id number alone without an ordering; any order when `ordered` is false),
    /// rows `[offset, offset + limit)` only: `body` gets each id number not in `skipping`
    /// and its key, decoded by the ordering into one buffer rewritten between calls.
    func forEachKey(
        entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?,
        limit: Int?, offset: Int, skipping: Set<Int64>, ordered: Bool,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError)
    /// Grouped aggregates of the saved objects matching `filter`, one snapshot per group.
    func aggregate(
        entity: String, filter: (any ObjectFilter)?, groupBy: [(String, AttributeType?)],
        functions: [(name: String, function: AggregateFunction, keyPath: String, type: AttributeType?)]
    ) throws(EngineError) -> [Snapshot]

    // MARK: Writing

    /// A new permanent id, unique across every process on the store.
    func reserveID(for entity: String) throws(EngineError) -> ObjectID
    /// `count` new consecutive numbers of the entity at once (a bulk load), ascending.
    func reserveIDs(for entity: String, count: Int) throws(EngineError) -> Range<Int64>
    /// Writes the batch in one transaction (or as part of the one `beginWrite` opened):
    /// all of it or, on any failure, nothing.
    func write(_ batch: StoreBatch) throws(EngineError)
    /// Begins a write transaction recorded in the history with `author`; `storeBusy` when
    /// another writer keeps the lock.
    func beginWrite(author: String?) throws(EngineError)
    func commitWrite() throws(EngineError)
    func rollbackWrite()

    // MARK: Set-based batch writes (entities that keep everything in their own row)

    /// Whether `entity` keeps everything in its own row (no to-many relationship).
    func isSingleRow(_ entity: String) -> Bool
    func readMatching(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> [(ObjectID, StoredObject)]
    /// The saved rows numbered `numbers` (any order) that exist, ascending.
    func readNumbered(entity: String, numbers: [Int64]) throws(EngineError) -> [(ObjectID, StoredObject)]
    /// `readNumbered`, and what the history records of each row when an update of `keys`
    /// changes it (`StoreBatch.priorHistory`); nil when the store reads that itself.
    func readNumbered(entity: String, numbers: [Int64], keepingHistoryOf keys: [String]) throws(EngineError) -> (
        [(ObjectID, StoredObject)], PriorHistory?
    )
    /// Inside the open write transaction: `values` on the rows numbered `numbers` (ascending;
    /// rows `readMatching` read under the same lock), each recorded as a save's update.
    func updateMatching(entity: String, numbers: [Int64], values: Snapshot) throws(EngineError)
    /// Inside the open write transaction: deletes the rows numbered `numbers` (ascending).
    func deleteMatching(entity: String, numbers: [Int64]) throws(EngineError)
    /// Inside the open write transaction, with no row read: `values` on the rows `filter`
    /// matches (all without one) where some value differs from the row's (as the row read
    /// back would compare), each recorded in the history exactly as `updateMatching` records
    /// it. Answers how many rows `filter` matched, changed or not; nil (nothing written) when
    /// the store does not do this, or not for these values.
    func updateWhere(entity: String, filter: (any ObjectFilter)?, values: Snapshot) throws(EngineError) -> Int?
    /// Inside the open write transaction, with no row read: deletes the rows `filter`
    /// matches, recorded as `deleteMatching` records them; how many; nil as for `updateWhere`.
    func deleteWhere(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> Int?

    // MARK: The history of commits

    /// The token of the newest committed history row (0 when there is none) in the state
    /// the contexts read (the held snapshot, if any).
    var currentToken: Int64 { get throws(EngineError) }
    /// The token of the newest committed history row, past the held snapshot.
    var newestToken: Int64 { get throws(EngineError) }
    /// The oldest token still kept (nil: the history is empty).
    var oldestToken: Int64? { get throws(EngineError) }
    /// Whether anyone else may have committed since the history was last merged: cheap
    /// enough to poll.
    func hasExternalChanges() throws(EngineError) -> Bool
    /// Committed transactions after `token`, oldest first, at most `limit` (a transaction is
    /// never split).
    func history(after token: Int64, limit: Int) throws(EngineError) -> [HistoryTransaction]
    /// `history(after:limit:)` that leaves `hasExternalChanges()` as it was, and reads past
    /// the held snapshot: a client reading the log.
    func readHistory(after token: Int64, limit: Int) throws(EngineError) -> [HistoryTransaction]
    /// Whether rows after `token` were pruned before this reader merged them.
    func historyGap(after token: Int64) throws(EngineError) -> Bool
    /// Every object the transactions touched, as the store held it before the first of them.
    func priorObjects(_ transactions: [HistoryTransaction]) throws(EngineError) -> [ObjectID: StoredObject?]
    /// The first token committed at or after `time` (unix seconds).
    func firstToken(notBefore time: Double) throws(EngineError) -> Int64
    /// Deletes history rows below `before` (unless `force`, only those every live cursor read).
    func purgeHistory(before token: Int64, force: Bool) throws(EngineError) -> Int
    /// Records this store's merge cursor and heartbeat when due.
    func recordCursorIfDue()
    /// Work the commits put off until their answer is out (SQLite's WAL checkpoint, when the
    /// host deferred checkpoints); nothing where there is none.
    func checkpointIfDue()
    /// What the model forbids in the saved row of `id` (written by another client).
    func storedProblems(_ id: ObjectID) throws(EngineError) -> [InvalidValue]
    /// The wake-up of other processes' commits; nil where there is none.
    func makeChangeAnnouncer(log: @escaping (String) -> Void) -> (any ChangeAnnouncer)?

    /// Ends the session: an open write is rolled back, unused reserved ids are returned.
    func close()
}

extension Store {
    public func count(entity: String, filter: (any ObjectFilter)?) throws(EngineError) -> Int {
        try count(entity: entity, filter: filter, skipping: [])
    }

    public func history(after token: Int64) throws(EngineError) -> [HistoryTransaction] {
        try history(after: token, limit: .max)
    }

    public func purgeHistory(before token: Int64) throws(EngineError) -> Int {
        try purgeHistory(before: token, force: false)
    }

    /// A store that reads what its history records when it writes (PostgreSQL's triggers).
    public func readNumbered(entity: String, numbers: [Int64], keepingHistoryOf keys: [String]) throws(EngineError)
        -> ([(ObjectID, StoredObject)], PriorHistory?)
    {
        (try readNumbered(entity: entity, numbers: numbers), nil)
    }
}

/// Rows a batch request read or wrote, as a read returns them (`Store.justWritten`). Both
/// lists are ascending by id and found by `ObjectID.index(of:in:by:)`: a batch reads and writes its
/// rows in id order, so no table of 100k entries is built and torn down per batch.
public struct JustWritten: Sendable {
    /// Rows read or changed; nil: no such row (deleted).
    public var rows: [(ObjectID, StoredObject?)]
    /// New rows at version 1: a bulk load's run.
    public var inserted: [(ObjectID, Snapshot)]

    public init(rows: [(ObjectID, StoredObject?)] = [], inserted: [(ObjectID, Snapshot)] = []) {
        assert(zip(rows, rows.dropFirst()).allSatisfy { $0.0 < $1.0 }, "rows are ascending")
        self.rows = rows
        self.inserted = inserted
    }

    /// The row as a read returns it (`.some(nil)`: none), or nil when the batch did not touch it.
    public func lookup(_ id: ObjectID) -> StoredObject?? {
        if let i = Self.index(of: id, in: rows) { return .some(rows[i].1) }
        guard let i = Self.index(of: id, in: inserted) else { return nil }
        return .some(StoredObject(values: inserted[i].1, version: 1))
    }

    private static func index<T>(of id: ObjectID, in list: [(ObjectID, T)]) -> Int? {
        ObjectID.index(of: id, in: list, by: \.0)
    }
}
