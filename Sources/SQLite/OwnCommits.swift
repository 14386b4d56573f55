import CSQLiteWAL

/// What a store does when one of its connections' commits has written the WAL file, while
/// that commit still holds the write lock (`Sources/CSQLiteWAL/wal_writes.c`): a watch of the
/// file drops the wake-up the commit's own writes caused, so a process is not woken by
/// itself. One instance may observe several connections (`Connection.observeCommits`).
public final class OwnCommits {
    let written: () -> Void

    public init(written: @escaping () -> Void) { self.written = written }
}

extension Connection {
    /// Calls `commits` at each commit of this connection, every statement's included (nil
    /// stops it); the connection keeps it alive meanwhile. False when the connection has no
    /// WAL of fetchd's VFS open yet (it opens on the first read in WAL mode): nothing is
    /// observed then.
    @discardableResult
    public func observeCommits(_ commits: OwnCommits?) -> Bool {
        guard let commits else {
            _ = csqlite_wal_observe_commits(handle, nil, nil)
            ownCommits = nil
            return true
        }
        let observed =
            csqlite_wal_observe_commits(
                handle, { context in Unmanaged<OwnCommits>.fromOpaque(context!).takeUnretainedValue().written() },
                Unmanaged.passUnretained(commits).toOpaque()) == 0
        ownCommits = observed ? commits : nil
        return observed
    }
}
