import Contexts
import Logging
import Model
import Store

/// When other processes' commits are merged on their own (protocol.md §5): besides
/// `store/checkExternalChanges`, before each incoming message and whenever input stays idle
/// for `Server.pollMilliseconds`, one `PRAGMA data_version` tells whether to merge.
public enum WatchMode: String, CaseIterable, Sendable {
    /// Only `store/checkExternalChanges` merges: same input bytes, same output bytes.
    case off
    /// Check before each message and every `Server.pollMilliseconds` of idle input.
    case poll
    /// For a store in a file: check before each message and when inotify reports a write
    /// to the file or its `-wal` (every `Server.fallbackMilliseconds` of idle input too, and
    /// `poll`'s interval where inotify is missing); `off` for `:memory:`. Generally: when the
    /// store's `ChangeAnnouncer` wakes (a PostgreSQL dataset's is its LISTEN connection).
    case auto
}

/// What watching keeps between checks: the wake-up of the open store's commits (inotify on
/// its files, or a PostgreSQL LISTEN; made once per opened graph), the rechecks after a wake,
/// a merge owed since `store/open`.
final class WatchState {
    private weak var graph: ObjectGraph?
    private var watch: (any ChangeAnnouncer)?
    /// Short checks still to make after a write event found nothing committed yet: a writer
    /// appends to the `-wal` before it publishes the commit in the shared index (which
    /// inotify does not see), so the commit may show a moment after the event.
    var rechecks = 0
    /// `store/open` was given a `historyToken`: the next check merges without waiting for a commit.
    var mergeOwed = false
    /// When a check the watch was drained for last took the snapshot held (a write may have
    /// taken it again since): every write after that has woken the watch. Nil when it was
    /// taken otherwise (before watching began, or on another store): it is renewed, never
    /// kept. A kept one is renewed once it is `Server.fallbackMilliseconds` old, as the idle
    /// check would be due (a watch can miss a write only as far as that check can).
    var snapshotWatchedSince: UInt64?
    /// The monotonic clock in nanoseconds; tests set their own.
    var now: () -> UInt64 = monotonicNanoseconds
    /// Makes the announcer of an opened graph's store; tests put a stand-in here.
    var makeAnnouncer: (ObjectGraph, @escaping (String) -> Void) -> (any ChangeAnnouncer)? = { graph, log in
        graph.store.makeChangeAnnouncer(log: log)
    }

    /// The announcer of `graph`'s store (made on first use; nil where there is none); what
    /// it wants the operator to know goes to `logger`. Asked several times a message: it
    /// makes nothing unless the graph changed.
    func watch(for graph: ObjectGraph, logger: Logger) -> (any ChangeAnnouncer)? {
        if self.graph !== graph {
            self.graph = graph
            snapshotWatchedSince = nil
            watch = makeAnnouncer(graph) { message in logger.warning("\(message)") }
        }
        return watch
    }

    /// The announcer `watch(for:logger:)` made for `graph`, without making one.
    func made(for graph: ObjectGraph) -> (any ChangeAnnouncer)? { self.graph === graph ? watch : nil }
}

extension Server {
    /// The idle wake-up while polling: an external commit is merged within about this long.
    public static let pollMilliseconds: Int32 = 50
    /// The idle wake-up beside inotify, in case an event is missed.
    public static let fallbackMilliseconds: Int32 = 1000
    /// After a write event that showed no commit yet: up to this many checks...
    static let rechecksAfterWake = 40
    /// ...this far apart (the commit shows within microseconds of its log write).
    public static let recheckMilliseconds: Int32 = 1

    /// Whether the open store's watch wakes for every write to it before the commit shows
    /// (inotify on the file and its log; not a PostgreSQL NOTIFY, which follows the commit):
    /// then a check it did not wake for finds nothing new. Asks the watch made already (the
    /// check before each message makes it), after every answer.
    var watchSeesEveryWrite: Bool {
        guard let graph = contexts.graph else { return false }
        return watchState.made(for: graph)?.wakesBeforeCommit == true
    }

    /// A check before a message that `announcer` did not wake for keeps the snapshot the last
    /// message left (the one its check took or its write ended with) when that began under
    /// the watch less than `fallbackMilliseconds` ago and nothing is owed: no recheck of an
    /// earlier wake, no merge asked for or left by a write.
    func keepsSnapshot(_ store: any Store, _ announcer: (any ChangeAnnouncer)?) -> Bool {
        guard let since = watchState.snapshotWatchedSince, !checkingWhileIdle, announcer?.wakesBeforeCommit == true
        else { return false }
        return store.holdsSnapshot && watchState.rechecks == 0 && !watchState.mergeOwed && !store.owesMerge
            && watchState.now() &- since < UInt64(Server.fallbackMilliseconds) * 1_000_000
    }

    /// How long the transport may wait for input (`idleIntervalMilliseconds`).
    var idleWait: Int32? {
        guard isWatching else { return nil }
        guard let announcer = changeAnnouncer else { return Self.pollMilliseconds }
        // Reconnecting: wake up when the next attempt is due (the fallback still bounds it).
        if let retry = announcer.retryMilliseconds { return min(max(retry, 1), Self.fallbackMilliseconds) }
        return watchState.rechecks > 0 ? Self.recheckMilliseconds : Self.fallbackMilliseconds
    }

    /// The wake-up the transport waits on beside its input (`--watch auto`).
    var changeAnnouncer: (any ChangeAnnouncer)? {
        guard configuration.watch == .auto, isWatching, let graph = contexts.graph else { return nil }
        return watchState.watch(for: graph, logger: logger)
    }

    /// Whether the open store is watched now. Nothing is sent before the first request was
    /// answered (a client that starts with `initialize` gets its answer first; a host that
    /// shows the first rows itself sets `watchesFromOpen`) or after `shutdown`.
    var isWatching: Bool {
        guard let graph = contexts.graph, graph.store.isOpen,
            lifecycle.requestCount > 0 || configuration.watchesFromOpen, !lifecycle.shutdownRequested
        else { return false }
        switch configuration.watch {
        case .off: return false
        case .poll: return true
        case .auto:
            let path = graph.store.path
            return path != ":memory:" && !path.isEmpty
        }
    }

    /// Merges other processes' commits when `PRAGMA data_version` says there are any.
    func mergeWatchedChanges(wakeQuiet: Bool = false) {
        guard isWatching, let graph = contexts.graph else { return }
        let announcer = changeAnnouncer
        // A file watch the transport's wait found quiet has nothing to read (a write since
        // then is the next wait's); another announcer's drain may also reconnect, so it runs.
        let skipsDrain = wakeQuiet && announcer?.wakesBeforeCommit == true
        let woken = skipsDrain ? false : (announcer?.drain() ?? false)
        if !woken, keepsSnapshot(graph.store, announcer) {
            // Nothing written since the held snapshot began (the watch would have said so
            // before the commit showed), so it is still the newest state: no new one to take.
            graph.store.recordCursorIfDue()
            return
        }
        do {
            // The message's snapshot: what is merged here is exactly what it reads.
            try graph.store.renewSnapshot()
            watchState.snapshotWatchedSince = announcer == nil ? nil : watchState.now()
            if try watchState.mergeOwed || graph.store.owesMerge || graph.hasExternalChanges() {
                watchState.mergeOwed = false
                // The cursor is recorded at the next idle check, after the notifications went out.
                try mergeExternalChanges(graph, recordingCursor: false, renewing: false)
                watchState.rechecks = 0
            } else if woken, announcer?.lastWakeMayPrecedeCommit == true {
                watchState.rechecks = Self.rechecksAfterWake
            } else if watchState.rechecks > 0 {
                watchState.rechecks -= 1
            } else {
                // Idle: keep this store's cursor alive so pruning waits for it (its commit
                // does not wake this watch: the store drops its own commits' events).
                graph.store.recordCursorIfDue()
            }
        } catch {
            logger.warning("merging external changes failed: \(error)")
        }
    }
}
