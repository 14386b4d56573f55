import CSQLite

extension Connection {
    /// Takes WAL checkpoints out of commits. By default the commit that leaves the WAL at
    /// 1000 pages or more copies them into the database file before it returns, which costs
    /// as much as the write itself after a big one; after this call commits only count the
    /// pages, and `checkpointIfDue` runs the checkpoint when the caller chooses (a server:
    /// once its answer is written).
    public func deferCheckpoints(atPages pages: Int = 1000) {
        let count = WALPageCount(threshold: pages)
        walPageCount = count
        // Replaces SQLite's own hook, which is what runs the checkpoint in the commit.
        sqlite3_wal_hook(
            handle,
            { context, _, _, pages in
                Unmanaged<WALPageCount>.fromOpaque(context!).takeUnretainedValue().pages = Int(pages)
                return SQLITE_OK
            }, Unmanaged.passUnretained(count).toOpaque())
    }

    /// Whether the commits since the last checkpoint left the WAL at the threshold or more.
    public var checkpointIsDue: Bool {
        guard let count = walPageCount else { return false }
        return count.pages >= count.threshold
    }

    /// A passive checkpoint (readers and writers of other connections go on meanwhile) when
    /// one is due; whether it ran. When it could not, the next call tries again.
    @discardableResult
    public func checkpointIfDue() throws(SQLiteError) -> Bool {
        guard checkpointIsDue, let count = walPageCount else { return false }
        try checkpointNow()
        // Frames a reader still needs stay; the next commit reports the count again.
        count.pages = 0
        return true
    }

    /// `checkpointIfDue` run through `other`, a second connection to the same file: one that
    /// holds a read transaction cannot run a checkpoint itself (SQLITE_LOCKED), but its
    /// snapshot does not keep the other from copying every frame up to it. Nil when none was
    /// due; else whether every frame of the WAL was copied into the file.
    public func checkpointIfDue(through other: Connection) throws(SQLiteError) -> Bool? {
        guard checkpointIsDue, let count = walPageCount else { return nil }
        let all = try other.checkpointNow()
        count.pages = 0
        return all
    }

    /// A passive checkpoint now, due or not (nothing to copy costs next to nothing); whether
    /// every frame of the WAL is in the file afterwards.
    @discardableResult
    public func checkpointNow() throws(SQLiteError) -> Bool {
        var log: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard rc == SQLITE_OK else { throw lastError }
        // -1: the connection has not read the file yet and knows of no WAL.
        return log >= 0 && copied == log
    }
}

/// Filled in by the WAL hook after each commit of the connection.
final class WALPageCount {
    let threshold: Int
    var pages = 0
    init(threshold: Int) { self.threshold = threshold }
}
