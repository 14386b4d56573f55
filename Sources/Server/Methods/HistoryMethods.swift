import Contexts
import Model
import Store

extension Server {
    /// `store/checkExternalChanges`, `store/historyToken`, `store/history`, `store/purgeHistory`.
    func historyMethods() -> [MethodTable.Entry] {
        let declared = HistoryDeclarations.self
        let scope = paramScope
        return [
            declared.checkExternalChanges.handle { [unowned self] _ in
                let graph = try contexts.requireGraph()
                let merged = try mergeExternalChanges(graph)
                return CheckExternalResult(merged: merged, token: graph.store.mergeCursor)
            },
            declared.historyToken.handle { [unowned self] _ in
                Single(.integer(try contexts.requireGraph().store.newestToken))
            },
            declared.history.handle(in: scope) { p in
                // Read one more than asked to tell whether there is more.
                var read = try p.graph.store.readHistory(after: p.after, limit: p.limit + 1)
                let more = read.count > p.limit
                if more { read.removeLast() }
                let selected = read.compactMap { t -> HistoryTransaction? in
                    if let authors = p.authors {
                        // A plain client's run has no author: only an unfiltered read lists it.
                        guard let author = t.author, authors.contains(author) else { return nil }
                    }
                    guard let entities = p.entities else { return t }
                    var kept = t
                    kept.changes = t.changes.filter { entities.contains($0.id.entity) }
                    return kept.changes.isEmpty ? nil : kept
                }
                return HistoryResult(transactions: selected, more: more)
            },
            declared.purgeHistory.handle(in: scope) { p in
                let store = p.graph.store
                let before = try p.before ?? store.firstToken(notBefore: p.beforeTime ?? 0)
                return Single(.integer(Int64(try store.purgeHistory(before: before, force: p.force))))
            },
        ]
    }

    /// Merges what other processes committed into the contexts: their change sets reach the
    /// controllers (reason `external`) and `store/didChangeExternally` is queued after them
    /// (`ExternalAnnouncer`). Returns how many transactions were merged.
    @discardableResult
    func mergeExternalChanges(_ graph: ObjectGraph, recordingCursor: Bool = true, renewing: Bool = true)
        throws(EngineError) -> Int
    {
        let merge = try graph.mergeExternalTransactions(renewing: renewing)
        // One small commit of its own (watching leaves it to the next idle check).
        if recordingCursor { graph.store.recordCursorIfDue() }
        return merge.transactions.count
    }
}
