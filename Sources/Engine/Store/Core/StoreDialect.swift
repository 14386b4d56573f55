import Model

/// What each store's SQL dialect provides on a session of its own kind (a SQLite
/// connection, a PostgreSQL session): a few statements of the history and the transaction
/// template. On top of them, once for both: the cursors and pruning of the history (the
/// rules: `HistoryRetention`, protocol.md §5 "Pruning and readers' cursors"), the purge,
/// and writes in the open transaction or one of their own.
protocol StoreDialect: AnyObject {
    associatedtype Session
    var upkeep: HistoryUpkeep { get set }
    var retention: HistoryRetention { get }
    var mergeCursor: Int64 { get }
    var origin: String { get }

    /// Inserts or replaces this store's cursor row.
    func upsertCursor(_ s: Session, token: Int64, heartbeat: Double) throws
    /// The smallest token of the other consumers' cursors alive since `heartbeat`.
    func otherCursorsMinimum(_ s: Session, aliveSince heartbeat: Double) throws -> Int64?
    /// The newest token (0 when the history is empty).
    func newestToken(_ s: Session) throws -> Int64
    /// The first token committed at or after `time` (unix seconds), if any.
    func firstToken(_ s: Session, notBefore time: Double) throws -> Int64?
    /// Deletes the history rows below `limit` but the newest, then the fetchd transactions
    /// no row refers to any more (the newest always stays); how many history rows went.
    func deleteHistory(_ s: Session, below limit: Int64) throws -> Int

    /// The session for a write of its own that must leave the held read snapshot be.
    func upkeepSession() throws(EngineError) -> Session
    /// Runs `body` on the upkeep session; a dialect whose second session can go stale while
    /// idle (a server that dropped it) runs it once more on a new one.
    func onUpkeepSession<T>(_ body: (Session) throws(EngineError) -> T) throws(EngineError) -> T
    /// The session the open write transaction runs on.
    func writeSession() throws(EngineError) -> Session
    /// Runs `body` in a write transaction of its own on `s`, holding the writers' lock
    /// (waiting up to the busy timeout: `storeBusy`); on any failure nothing is written and
    /// the error is the store's, saying `what` failed.
    func inWriteTransaction<T>(_ s: Session, _ what: String, _ body: (Session) throws -> T) throws(EngineError) -> T
    /// Runs `body` on `s`, its errors the store's, saying `what` failed.
    func reading<T>(_ s: Session, _ what: String, _ body: (Session) throws -> T) throws(EngineError) -> T
}

/// The history's public reads and purge, and writes of their own, once for both stores.
extension StoreDialect where Self: Store {
    /// The first token committed at or after `time` (unix seconds); past the newest when
    /// every row is older. Purging before it purges what was committed before `time`.
    func firstHistoryToken(notBefore time: Double) throws(EngineError) -> Int64 {
        try onUpkeepSession { s throws(EngineError) in
            try reading(s, "reading the history") { s in try firstToken(s, notBefore: time) ?? (try newestToken(s) + 1)
            }
        }
    }

    /// Runs `body` inside the open write transaction when there is one (its lock is held),
    /// else in a write transaction of its own on the upkeep session.
    func inOpenOrOwnTransaction<T>(_ what: String, _ body: (Session) throws -> T) throws(EngineError) -> T {
        if isWriting { return try reading(try writeSession(), what, body) }
        return try onUpkeepSession { s throws(EngineError) in try inWriteTransaction(s, what, body) }
    }

    /// Deletes the history rows with a token below `before`, and the fetchd transactions no
    /// remaining row refers to. The newest row always stays: new tokens are max + 1, so they
    /// keep rising and a reader's cursor never sees a token used twice. Unless `force`, rows
    /// a live cursor has not read yet stay too; a forced purge leaves such a reader a gap,
    /// which it answers with a full refetch. Returns how many history rows were deleted.
    func purgeHistoryRows(before token: Int64, force: Bool) throws(EngineError) -> Int {
        guard !isWriting else {
            throw EngineError(.storeError, "a save is in progress", [("path", .string(path))])
        }
        return try onUpkeepSession { s throws(EngineError) in
            try inWriteTransaction(s, "purging the history") { s in try purge(s, before: token, force: force) }
        }
    }
}

extension StoreDialect {
    /// Whether `keepHistory` has anything to do now.
    var upkeepDue: Bool {
        let now = StoreClock.now()
        return upkeep.cursorDue(mergeCursor, now: now, retention) || now - upkeep.pruneTime >= retention.pruneInterval
    }

    /// Inside a save's transaction, before its COMMIT: records this store's cursor when due
    /// and prunes when due, so neither costs a transaction of its own.
    func keepHistory(_ s: Session) throws {
        let now = StoreClock.now()
        if upkeep.cursorDue(mergeCursor, now: now, retention) { try writeCursor(s, now) }
        if now - upkeep.pruneTime >= retention.pruneInterval {
            upkeep.pruneTime = now
            _ = try prune(s, before: .max, now: now, force: false)
        }
    }

    func writeCursor(_ s: Session, _ now: Double) throws {
        try upsertCursor(s, token: mergeCursor, heartbeat: now)
        upkeep.cursorToken = mergeCursor
        upkeep.cursorTime = now
    }

    /// The oldest token a live cursor has merged up to: other stores' as recorded, this
    /// store's as it is now.
    func oldestLiveCursor(_ s: Session, now: Double) throws -> Int64 {
        min(mergeCursor, try otherCursorsMinimum(s, aliveSince: now - retention.staleAfter) ?? .max)
    }

    /// Deletes history rows below `before` that the retention lets go and, unless `force`,
    /// that every live cursor has read; the newest row always stays. Under the writers' lock.
    func prune(_ s: Session, before: Int64, now: Double, force: Bool) throws -> Int {
        var limit = before
        if !force {
            // Retention: older than maxAge or beyond the newest maxRows (tokens are dense).
            limit = retention.pruneLimit(
                before: limit, newest: try newestToken(s),
                firstYoung: try firstToken(s, notBefore: now - retention.maxAge),
                oldestLiveCursor: try oldestLiveCursor(s, now: now))
        }
        return try deleteHistory(s, below: limit)
    }

    /// `store/purgeHistory` inside the dialect's write transaction: below `token`, and
    /// unless `force` only what every live reader merged.
    func purge(_ s: Session, before token: Int64, force: Bool) throws -> Int {
        let now = StoreClock.now()
        var limit = token
        if !force { limit = min(limit, try oldestLiveCursor(s, now: now) + 1) }
        return try prune(s, before: limit, now: now, force: true)
    }
}
