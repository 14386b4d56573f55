import Model

/// A wake-up for commits by other processes, waited on beside the server's input: an
/// inotify descriptor for a store in a file (`StoreFileWatch`), a LISTEN connection for a
/// shared PostgreSQL dataset. Only a hint: whether anything was committed is always read
/// from the history by token (a missed wake-up loses nothing; the idle fallback check finds
/// it, and a read snapshot the server keeps from message to message is renewed as often).
public protocol ChangeAnnouncer: AnyObject {
    /// Readable when there may be news: poll(2) it, then call `drain()`. -1 while there is
    /// nothing to wait on (a connection being re-established; poll ignores it).
    var descriptor: Int32 { get }
    /// Reads every pending event without blocking (and, when due, reconnects). True when other
    /// processes may have committed: the caller runs the external-change check.
    func drain() -> Bool
    /// While `descriptor` is -1: how soon `drain()` should run again (a reconnect attempt
    /// is due); nil otherwise.
    var retryMilliseconds: Int32? { get }
    /// Whether a wake-up can come before the commit is visible, so that finding nothing is
    /// worth a few short rechecks (SQLite's log is written before the commit is published);
    /// false when the announcement follows the commit (PostgreSQL's NOTIFY).
    var wakesBeforeCommit: Bool { get }
    /// Whether the wake-up `drain()` last read can be such an early one: a checkpoint copying
    /// SQLite's log into the file wakes the watch too, but commits nothing and precedes none.
    var lastWakeMayPrecedeCommit: Bool { get }
}

extension ChangeAnnouncer {
    public var lastWakeMayPrecedeCommit: Bool { wakesBeforeCommit }
}

extension EngineError.Kind {
    /// The store's server cannot be reached (a shared dataset's connection dropped and is
    /// being re-established); nothing was read or written. Retry later.
    public static let storeUnavailable = Self("storeUnavailable")
}
