import Model
import SQLite

#if canImport(Glibc)
    extension StoreFileWatch: ChangeAnnouncer {
        public var retryMilliseconds: Int32? { nil }
        public var wakesBeforeCommit: Bool { true }
        public var lastWakeMayPrecedeCommit: Bool { logWritten }
    }
#endif

extension SQLiteStore {
    /// The wake-up of this store's commits by other processes; nil where there is none
    /// (`:memory:`, no inotify). `log` receives what the announcer wants the operator to
    /// know (a connection lost or re-established). The store's own commits read the events
    /// they caused while they still hold the write lock, so they never wake it.
    public func makeChangeAnnouncer(log: @escaping (String) -> Void) -> (any ChangeAnnouncer)? {
        #if canImport(Glibc)
            guard let watch = StoreFileWatch(path: path) else { return nil }
            let commits = OwnCommits { [weak watch] in _ = watch?.drain() }
            ownCommits = commits
            for db in [try? connection, sideHandle] { db?.observeCommits(commits) }
            return watch
        #else
            return nil
        #endif
    }
}
