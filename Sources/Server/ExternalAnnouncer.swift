import Contexts
import Model
import Store

/// Announces every merge of other processes' commits (`store/didChangeExternally`, after
/// the controllers' cycles), whoever caused it: `store/checkExternalChanges`, the watch, or a
/// write that merged first (protocol.md §5, "One state per message").
final class ExternalAnnouncer: StoreOpenObserver, GraphObserver {
    private unowned let server: Server

    init(_ server: Server) { self.server = server }

    func storeDidOpen(_ graph: ObjectGraph) { graph.addObserver(self) }

    /// It announces other processes' commits only: no change set of a batch reaches it.
    func graph(_ graph: ObjectGraph, needsBatchValuesOf entity: String) -> Bool { false }

    func graph(_ graph: ObjectGraph, didMergeExternally merge: ObjectGraph.ExternalMerge) {
        let logger = server.logger
        if merge.gap { logger.warning("history not yet merged here was pruned: every controller fetched again") }
        for v in merge.invalid {
            logger.warning("invalid value from another process: \(v.id) \(v.key ?? "-"): \(v.problem)")
        }
        server.send(
            HistoryDeclarations.didChangeExternally,
            ExternalChange(
                token: graph.store.mergeCursor, transactions: merge.transactions, gap: merge.gap, invalid: merge.invalid
            ))
    }
}

extension Server {
    /// How the open store reads between merges: one snapshot per message while watching
    /// (the watch merges before each), one held from merge to merge otherwise; none in memory.
    func readSnapshots(for store: any Store, watching: Bool) -> ReadSnapshots {
        guard store.path != ":memory:", !store.path.isEmpty else { return .off }
        return watching ? .perMessage : .held
    }

    /// Before each message and at each idle check: the state the next reads come from.
    /// `wakeQuiet`: the transport's wait found the watch with nothing to read.
    func takeReadState(wakeQuiet: Bool = false) {
        guard let graph = contexts.graph, graph.store.isOpen else { return }
        let watching = isWatching
        graph.store.readSnapshots = readSnapshots(for: graph.store, watching: watching)
        if watching {
            mergeWatchedChanges(wakeQuiet: wakeQuiet)
        } else {
            watchState.snapshotWatchedSince = nil
            // Merges only when asked: the held snapshot stays what was last merged. Without
            // one, reads see the file as it is (as with snapshots off); the next message tries again.
            do { try graph.store.holdSnapshot() } catch {
                logger.warning("taking a read snapshot failed: \(error)")
            }
        }
    }
}
