import Model
import SQLite

extension EngineError.Kind {
    /// Another connection (any process) held the write lock for longer than the store's busy
    /// timeout; nothing was written.
    public static let storeBusy = Self("storeBusy")
}

/// fetchd's write transactions: BEGIN IMMEDIATE takes the write lock first, so what a save
/// reads inside it (versions) cannot change before its COMMIT; its `_fetchd_transactions`
/// row (author, origin) gives the token its history rows carry.
extension SQLiteStore {
    /// Whether a write transaction begun by `beginWrite` is open.
    public var isWriting: Bool { writeToken != nil }

    /// How long a write waits for another writer's lock before `storeBusy` (SQLite retries
    /// meanwhile).
    public var busyTimeout: Int {
        get { busyTimeoutMilliseconds }
        set {
            busyTimeoutMilliseconds = newValue
            try? connection.execute("PRAGMA busy_timeout=\(max(0, newValue))")
        }
    }

    /// Begins a write transaction recorded in the history with `author`. Throws `storeBusy`
    /// when the lock stays taken; nothing is open then.
    public func beginWrite(author: String?) throws(EngineError) {
        guard writeToken == nil else { return }
        let db = try connection
        let values: [SQLValue] = [author.map(SQLValue.text) ?? .null, .text(origin)]
        if writeBeginsAfresh {
            writeBeginsAfresh = false
            releaseSnapshot()
            // What was committed since that checkpoint (an id block through the second
            // connection, say) is copied too, so the write reads the file alone.
            _ = try? db.checkpointNow()
        }
        if upgradeSnapshot(db, values) { return }
        releaseSnapshot()
        do throws(EngineError) { try beginImmediate(db, "the save was not written") } catch {
            afterWriteEnded(versionInWrite: nil)
            throw error
        }
        do {
            if readSnapshots != .off { writeDataVersion = try Self.dataVersion(db) }
            try db.prepare(Self.insertTransaction).run(values)
            writeToken = db.lastInsertRowID
        } catch {
            try? db.execute("ROLLBACK")
            afterWriteEnded(versionInWrite: writeDataVersion.take())
            throw Self.storeError(error, "the save was not written")
        }
    }

    private static let insertTransaction =
        "INSERT INTO \"\(HistorySchema.transactions)\" (author, origin, time) VALUES (?, ?, (julianday('now') - 2440587.5) * 86400.0)"

    /// The held snapshot becomes the write transaction when it is still the newest state:
    /// its first write (the transaction row) takes the write lock in it, which SQLite grants
    /// only then (else SQLITE_BUSY or BUSY_SNAPSHOT, at once: no busy wait inside a read).
    /// The write then works on the newest state, as after BEGIN IMMEDIATE, without ending
    /// and retaking the read lock (2 of a save's fcntl calls). Whether it did; when not,
    /// nothing was written and the snapshot is still held.
    private func upgradeSnapshot(_ db: Connection, _ values: [SQLValue]) -> Bool {
        guard snapshotHeld else { return false }
        // A statement left stepping would keep its state open past the COMMIT.
        db.resetPendingStatements()
        guard (try? db.prepare(Self.insertTransaction).run(values)) != nil else { return false }
        snapshotHeld = false
        writeToken = db.lastInsertRowID
        // Nobody else committed since the snapshot began (else no lock): data_version is its.
        writeDataVersion = snapshotDataVersion
        return true
    }

    /// Commits the open write transaction; on failure (a deferred foreign key, I/O) it is
    /// rolled back and nothing was written.
    public func commitWrite() throws(EngineError) {
        guard writeToken != nil else { return }
        let db = try connection
        writeToken = nil
        defer { afterWriteEnded(versionInWrite: writeDataVersion.take()) }
        do {
            // Upkeep (cursor, pruning, ids ahead of need) never fails a save: a failed
            // statement undoes only itself.
            try? keepHistory(db)
            let reserved = (try? reservationsAhead(db)) ?? []
            // Prepared once and kept, like BEGIN IMMEDIATE: every save runs both.
            try db.prepare("COMMIT").run()
            install(reserved)
        } catch {
            try? db.execute("ROLLBACK")
            throw Self.storeError(error, "the save was not written")
        }
    }

    /// The WAL checkpoint the commits made due, once checkpoints are deferred
    /// (`Connection.deferCheckpoints`); never inside a write. A failure waits for the next call.
    /// With a snapshot held across messages (`ReadSnapshots.held`) the second connection runs
    /// it, and once it copied every frame the next write begins on a fresh read of the file
    /// instead of the snapshot, which lets SQLite start the WAL over (a write on a read that
    /// began before the checkpoint appends to it).
    public func checkpointIfDue() {
        guard !isWriting, isOpen, let db = try? connection else { return }
        guard snapshotHeld else {
            _ = try? db.checkpointIfDue()
            return
        }
        guard db.checkpointIsDue, let side = try? upkeepSession(),
            let all = try? db.checkpointIfDue(through: side)
        else { return }
        if all == true { writeBeginsAfresh = true }
    }

    /// Rolls back the open write transaction, if any.
    public func rollbackWrite() {
        guard writeToken != nil else { return }
        writeToken = nil
        try? connection.execute("ROLLBACK")
        afterWriteEnded(versionInWrite: writeDataVersion.take())
    }

    /// BEGIN IMMEDIATE, turning a lock that stays taken into `storeBusy`.
    func beginImmediate(_ db: Connection, _ what: String) throws(EngineError) {
        do { try db.prepare("BEGIN IMMEDIATE").run() } catch {
            if error.code & 0xff == 5 || error.code & 0xff == 6 {
                throw EngineError(
                    .storeBusy, "the store is locked by another writer; nothing was written",
                    [("path", .string(path)), ("timeoutMs", .int(Int64(busyTimeoutMilliseconds)))])
            }
            throw Self.storeError(error, what)
        }
    }

    static func dataVersion(_ db: Connection) throws -> Int64 {
        let s = try db.prepare("PRAGMA data_version")
        defer { s.reset() }
        _ = try s.step()
        return s.int64(0)
    }
}
