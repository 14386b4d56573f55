import Model

#if canImport(Glibc)
    extension StoreFileWatch: ChangeAnnouncer {
        public var retryMilliseconds: Int32? { nil }
        public var wakesBeforeCommit: Bool { true }
    }
#endif

extension SQLiteStore {
    /// The wake-up of this store's commits by other processes; nil where there is none
    /// (`:memory:`, no inotify). `log` receives what the announcer wants the operator to
    /// know (a connection lost or re-established).
    public func makeChangeAnnouncer(log: @escaping (String) -> Void) -> (any ChangeAnnouncer)? {
        #if canImport(Glibc)
            return StoreFileWatch(path: path)
        #else
            return nil
        #endif
    }
}
