import Model
import SQLite

/// A read transaction held on the store's connection (WAL: other processes go on writing;
/// this connection goes on reading the state it began with). A write ends it (a write always
/// works on the newest state) and takes a new one when it ends; whatever other processes
/// committed in that instant is owed a merge (`owesMerge`). Small upkeep writes (id blocks,
/// the cursor's heartbeat) go through a second connection instead, so they never end it.
extension SQLiteStore {
    /// Begins a read snapshot unless one is held or a write is open.
    public func holdSnapshot() throws(EngineError) {
        guard readSnapshots != .off, !snapshotHeld, !isWriting, let db = try? connection else { return }
        do {
            try db.prepare("BEGIN").run()
            // The first read of a table takes the snapshot (PRAGMA data_version alone does
            // not); data_version then stays as it was in it.
            let first = try db.prepare("SELECT 1 FROM sqlite_master LIMIT 1")
            defer { first.reset() }
            _ = try first.step()
            snapshotDataVersion = try Self.dataVersion(db)
            snapshotHeld = true
        } catch {
            try? db.execute("ROLLBACK")
            throw Self.storeError(error, "beginning a read")
        }
    }

    /// Ends the held snapshot (nothing was written in it).
    public func releaseSnapshot() {
        guard snapshotHeld, let db = try? connection else { return }
        snapshotHeld = false
        // A statement left stepping would keep this state open past the COMMIT.
        db.resetPendingStatements()
        if (try? db.prepare("COMMIT").run()) == nil { try? db.execute("ROLLBACK") }
    }

    public var holdsSnapshot: Bool { snapshotHeld }

    /// A snapshot of the file as it is now, in place of the one held.
    public func renewSnapshot() throws(EngineError) {
        releaseSnapshot()
        try holdSnapshot()
    }

    /// After a write ended (committed or rolled back): a new snapshot (the deferred
    /// checkpoint waits until the answer is out, `checkpointIfDue`). `versionInWrite` is
    /// data_version inside the write: when the new snapshot's differs, another connection
    /// committed between the write's end and the snapshot, and that commit is owed a merge.
    func afterWriteEnded(versionInWrite: Int64?) {
        guard readSnapshots != .off, isOpen else { return }
        guard (try? holdSnapshot()) != nil else { return }
        if let versionInWrite, snapshotDataVersion != versionInWrite { owesMerge = true }
    }

    /// The connection for upkeep writes that must not end the held snapshot: a second one
    /// to the same file while a snapshot is held, this one otherwise.
    func upkeepSession() throws(EngineError) -> Connection {
        let db = try connection
        guard snapshotHeld else { return db }
        if let side = sideHandle { return side }
        do {
            let side = try Connection(path: path)
            // A first read opens the WAL: a connection that read nothing has no WAL to checkpoint.
            try side.execute(
                "PRAGMA busy_timeout=\(max(0, busyTimeoutMilliseconds)); SELECT 1 FROM sqlite_master LIMIT 1")
            if let ownCommits { side.observeCommits(ownCommits) }
            sideHandle = side
            return side
        } catch { throw Self.storeError(error, "opening a second connection to \(path)") }
    }
}
