import CSQLiteWAL

/// What a store does when one of its own commits has written the WAL file, while that commit
/// still holds the write lock (`Sources/CSQLiteWAL/wal_writes.c`): a watch of the file drops
/// the wake-up the commit's own writes caused, so a process is not woken by itself. Only
/// connections opened through fetchd's VFS call it (all of `Connection`'s).
public final class OwnCommits {
    private let written: () -> Void

    public init(written: @escaping () -> Void) { self.written = written }

    /// Runs `body` (which commits on this thread) with `written` called at each of its
    /// commits; the observer of this thread is cleared afterwards, whatever `body` did.
    public func observe<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        csqlite_wal_observe_commits(
            { context in Unmanaged<OwnCommits>.fromOpaque(context!).takeUnretainedValue().written() },
            Unmanaged.passUnretained(self).toOpaque())
        defer { csqlite_wal_observe_commits(nil, nil) }
        return try body()
    }
}

extension Optional where Wrapped == OwnCommits {
    /// `observe` when there is an observer; `body` alone otherwise.
    public func observe<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let commits = self else { return try body() }
        return try commits.observe(body)
    }
}
