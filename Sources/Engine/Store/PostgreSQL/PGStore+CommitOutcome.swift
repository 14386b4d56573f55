import Model
import Postgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A COMMIT whose answer was lost with the connection: the backend was terminated while it
/// waited for a synchronous standby, the server stopped, the network dropped. The server may
/// have committed or not, and a wrong "nothing was written" leaves the context with changes
/// that are already in the store (every retry then conflicts with its own commit). Every
/// fetchd write inserts its token's row in `_fetchd_transactions` with this store's `origin`
/// (`beginWrite`), so a new session can tell which (protocol.md §5, "A COMMIT without an
/// answer").
extension PGStore {
    /// What became of a write transaction whose COMMIT got no answer.
    enum CommitOutcome: Equatable {
        case committed
        case notCommitted
        /// The check could not be made; why.
        case unknown(String)
    }

    /// The waits before each attempt to reconnect for the check, in milliseconds: the
    /// request waits for them (under a second in all), instead of the backoff of `db()`.
    static let commitCheckDelays = [0, 50, 200, 500]

    /// After the COMMIT of write `token` failed with a broken connection: reconnects and looks
    /// for the transaction's row. Returns normally when it committed (the save succeeded);
    /// throws `lost` (nothing was written) when it did not, and `storeUnavailable` with
    /// `outcome: "unknown"` when the check could not be made.
    func settleLostCommit(token: Int64, lost: EngineError, cause: PGError) throws(EngineError) {
        switch commitOutcome(token: token) {
        case .committed:
            log("the COMMIT of transaction \(token) lost its connection; the transaction is in the store: saved")
        case .notCommitted:
            log("the COMMIT of transaction \(token) lost its connection; the transaction is not in the store")
            throw lost
        case .unknown(let why):
            log("the COMMIT of transaction \(token) lost its connection, and whether it committed is unknown: \(why)")
            throw EngineError(
                .storeUnavailable,
                "the save may or may not have been written: the connection to the PostgreSQL server was lost "
                    + "after COMMIT was sent, and whether the transaction committed cannot be checked (\(why))",
                [("path", .string(path)), ("message", .string(cause.message)), ("outcome", .string("unknown"))])
        }
    }

    /// Whether write `token` committed, asked on a new session (reconnecting at once, then
    /// after each of `commitCheckDelays`).
    func commitOutcome(token: Int64) -> CommitOutcome {
        guard let c = connection else { return .unknown("the store was closed") }
        var why = "the PostgreSQL server cannot be reached"
        for delay in Self.commitCheckDelays {
            if delay > 0 { usleep(UInt32(delay) * 1000) }
            do {
                if !c.isConnected {
                    // Past the backoff of `reconnectIfBroken`: once connected, `db()` finds
                    // the connection usable and forgets the backoff.
                    try c.reset()
                    try PGSchemaSetup.configure(c, schema: schema)
                    log("reconnected to \(path)")
                }
                return try isCommitted(c, token) ? .committed : .notCommitted
            } catch {
                if error.connectionBroken || !c.isConnected {
                    why = "the PostgreSQL server cannot be reached: \(error.message)"
                    continue
                }
                if error.sqlState == "55P03" || error.sqlState == "40P01" {
                    return .unknown("another session held the writers' lock past the busy timeout")
                }
                return .unknown(error.message)
            }
        }
        return .unknown(why)
    }

    /// Whether the row of write `token` by this store (its `origin`: after an abort another
    /// writer may take the same token) is in `_fetchd_transactions`. A row seen is committed.
    /// A row not seen may still belong to a transaction running on the old backend, which has
    /// not noticed yet that its client is gone, and which holds the writers' lock until it
    /// ends: the second look, under that lock, is final.
    private func isCommitted(_ c: PGConnection, _ token: Int64) throws(PGError) -> Bool {
        let find = "SELECT 1 FROM \(PGHistorySchema.transactions) WHERE token = $1 AND origin = $2"
        let params: [PGValue?] = [.int(token), .text(origin)]
        if try c.execPrepared(find, params).count > 0 { return true }
        do {
            // READ COMMITTED: the second look's snapshot is taken after the lock is granted.
            try c.exec(
                "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '\(max(1, busyTimeout))ms'")
            try c.execPrepared(lockSQL, [.text(schema)])
            let found = try c.execPrepared(find, params).count > 0
            try c.exec("ROLLBACK")
            return found
        } catch {
            if c.isConnected && c.inTransaction { _ = try? c.exec("ROLLBACK") }
            throw error
        }
    }
}
