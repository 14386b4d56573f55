import Contexts
import Store

/// When other processes' commits are merged on their own (protocol.md §5): besides
/// `store/checkExternalChanges`, before each incoming message and whenever input stays idle
/// for `Server.pollMilliseconds`, one `PRAGMA data_version` tells whether to merge.
public enum WatchMode: String, CaseIterable, Sendable {
    /// Only `store/checkExternalChanges` merges: same input bytes, same output bytes.
    case off
    /// Check before each message and when idle.
    case poll
    /// `poll` for a store in a file, `off` for `:memory:` (no other process can open it).
    case auto
}

extension Server {
    /// The idle wake-up while watching: an external commit is merged within about this long.
    public static let pollMilliseconds: Int32 = 50

    /// Whether the open store is watched now. Nothing is sent before the first request was
    /// answered (a client that starts with `initialize` gets its answer first) or after
    /// `shutdown`.
    var isWatching: Bool {
        guard let graph = contexts.graph, graph.store.isOpen, lifecycle.requestCount > 0,
              !lifecycle.shutdownRequested else { return false }
        switch configuration.watch {
        case .off: return false
        case .poll: return true
        case .auto: return graph.store.path != ":memory:" && !graph.store.path.isEmpty
        }
    }

    /// Merges other processes' commits when `PRAGMA data_version` says there are any.
    func mergeWatchedChanges() {
        guard isWatching, let graph = contexts.graph else { return }
        do {
            if try graph.hasExternalChanges() { try mergeExternalChanges(graph) }
        } catch {
            logger.warning("merging external changes failed: \(error)")
        }
    }
}
