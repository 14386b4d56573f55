import Model
import Postgres

/// Read snapshots on PostgreSQL (protocol.md §5, "One state per message"): a REPEATABLE READ
/// transaction on the store's session, as ReadSnapshot.swift keeps a read transaction on
/// SQLite. Writes end it and take a new one when they end; the number takers, which hold
/// the writers' lock until they commit, use a second session while it is held.
extension PGStore {
    public func holdSnapshot() throws(EngineError) {
        guard readSnapshots != .off, !snapshotHeld, !isWriting else { return }
        let c = try db()
        do {
            try c.exec("BEGIN ISOLATION LEVEL REPEATABLE READ")
            // The first query takes the snapshot.
            snapshotToken =
                try c.execPrepared("SELECT coalesce(max(seq), 0) FROM \(PGHistorySchema.history)").int64(0, 0) ?? 0
            snapshotHeld = true
        } catch {
            if c.isConnected && c.inTransaction { _ = try? c.exec("ROLLBACK") }
            throw failure(error, "beginning a read")
        }
    }

    public func releaseSnapshot() {
        guard snapshotHeld else { return }
        snapshotHeld = false
        // A cursor row written meanwhile commits with it.
        if let c = connection, c.isConnected, (try? c.exec("COMMIT")) == nil { _ = try? c.exec("ROLLBACK") }
    }

    public var holdsSnapshot: Bool { snapshotHeld }

    public func renewSnapshot() throws(EngineError) {
        releaseSnapshot()
        try holdSnapshot()
    }

    /// After a write ended: a new snapshot; a commit by another writer since the write's
    /// newest token (`tokenInWrite`) is owed a merge.
    func afterWriteEnded(tokenInWrite: Int64?) {
        guard readSnapshots != .off, isOpen, (try? holdSnapshot()) != nil else { return }
        if let tokenInWrite, snapshotToken != tokenInWrite { owesMerge = true }
    }

    /// A statement failed inside the held snapshot, which PostgreSQL then refuses to go on
    /// with: a new one takes its place (owing a merge when others committed meanwhile).
    func recoverSnapshot(after error: PGError) {
        guard snapshotHeld, !error.connectionBroken, let c = connection, c.isConnected else { return }
        snapshotHeld = false
        _ = try? c.exec("ROLLBACK")
        let before = snapshotToken
        guard (try? holdSnapshot()) != nil else { return }
        if snapshotToken != before { owesMerge = true }
    }

    /// The session for a write of its own while a snapshot is held: a second one (made on
    /// first use, made again when it broke); the store's own otherwise.
    func upkeepSession() throws(EngineError) -> PGConnection {
        guard snapshotHeld else { return try db() }
        if let side = sideConnection, side.isConnected { return side }
        sideConnection?.close()
        sideConnection = nil
        do {
            let side = try PGConnection(conninfo)
            try PGSchemaSetup.configure(side, schema: schema)
            sideConnection = side
            return side
        } catch {
            throw EngineError(
                .storeUnavailable, "the PostgreSQL server cannot be reached: \(error)",
                [("path", .string(path)), ("message", .string("\(error)"))])
        }
    }
}

extension PGStore {
    func writeSession() throws(EngineError) -> PGConnection { try db() }

    /// The second session idles between uses, and a server that dropped it (a restart, an
    /// administrator) is seen only when it is used: once it broke, `body` runs once more on
    /// a new one (what broke before COMMIT wrote nothing; a purge or an id block lost at
    /// COMMIT are safe to take again). The store's own session keeps its backoff.
    func onUpkeepSession<T>(_ body: (PGConnection) throws(EngineError) -> T) throws(EngineError) -> T {
        let session = try upkeepSession()
        do { return try body(session) } catch {
            guard error.kind == .storeUnavailable, session !== connection, sideConnection == nil else { throw error }
            return try body(try upkeepSession())
        }
    }
}
