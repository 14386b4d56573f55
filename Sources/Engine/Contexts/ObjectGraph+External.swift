import Model
import Store

/// Commits made to the file by other processes (another fetchd, a script), read from the
/// store's history (protocol.md §5) and merged as a sibling root's save is merged.
extension ObjectGraph {
    /// Whether another connection committed since the history was last read: one cheap
    /// `PRAGMA data_version`, fit for polling.
    public func hasExternalChanges() throws(EngineError) -> Bool {
        try store.hasExternalChanges()
    }

    /// Merges every transaction committed after the store's `mergeCursor` by other stores or
    /// plain clients, skipping this store's own, then moves the cursor past them: each
    /// transaction is merged exactly once. All of them are coalesced into one change cycle
    /// per context: each root that merges changes (and, through it, its children) sees
    /// the objects go from their values before the first transaction to their values now;
    /// its unsaved changes stay on top, based on the new versions. Returns the change sets
    /// delivered, in order (also given to the observers).
    @discardableResult
    public func mergeExternalChanges() throws(EngineError) -> [ChangeSet] {
        defer { store.recordCursorIfDue() }
        return try mergeExternalTransactions().changeSets
    }

    /// What one merge did: the other writers' transactions it merged (oldest first) and the
    /// change sets it delivered (reason `.external`).
    public struct ExternalMerge: Sendable {
        public var transactions: [HistoryTransaction] = []
        public var changeSets: [ChangeSet] = []
        /// History this store had not read was pruned (by retention past a stale cursor, or
        /// a forced purge): what changed is unknown, so every merging context's controllers
        /// fetched again (`ChangeSet.refetch`). `transactions` lists what was left to read.
        public var gap = false
        /// Values plain clients wrote against the model, in the objects they changed
        /// (`Store.storedProblems`), and rows of entities the model does not have. They are
        /// merged all the same: reads show them converted where possible, else null.
        public var invalid: [InvalidValue] = []
    }

    /// `mergeExternalChanges`, also telling which transactions were merged. The caller
    /// records the cursor (`Store.recordCursorIfDue`) when it is done with the merge.
    ///
    /// With read snapshots on, the merge reads a new snapshot (`renewing`, unless the caller
    /// just took one), so the contexts go on reading exactly the state it merged; under a
    /// write's lock (`underLock`) it reads the newest state, which that lock holds still.
    public func mergeExternalTransactions(renewing: Bool = true) throws(EngineError) -> ExternalMerge {
        guard !store.isWriting else { return ExternalMerge() }
        if renewing { try store.renewSnapshot() }
        store.owesMerge = false
        return try mergeReadState()
    }

    /// The merge of the history after the cursor as the store reads it now; announced to
    /// the observers (`didMergeExternally`) when it merged anything.
    func mergeReadState() throws(EngineError) -> ExternalMerge {
        let merge = try mergeHistory()
        if !merge.transactions.isEmpty || merge.gap { announce(merge) }
        return merge
    }

    private func mergeHistory() throws(EngineError) -> ExternalMerge {
        if try store.historyGap(after: store.mergeCursor) { return try refetchAfterGap() }
        let transactions = try store.history(after: store.mergeCursor)
        guard let last = transactions.last else { return ExternalMerge() }
        let foreign = transactions.filter { $0.origin != store.origin }
        guard !foreign.isEmpty else {
            store.mergeCursor = last.token
            return ExternalMerge()
        }
        let prior = try store.priorObjects(foreign)
        let ids = prior.keys.sorted()
        var now: [ObjectID: Snapshot?] = [:]
        for id in ids { now[id] = try store.read(id)?.values }
        let mergers = roots.filter(\.mergesChangesFromParent)

        // Note what every merging context (and its children) showed, reading the store as
        // it was; then the rebase and the cycles read it as it is.
        store.overlay = prior
        do throws(EngineError) {
            for r in mergers {
                for id in ids { try r.noteCurrent(id, next: now[id] ?? nil) }
            }
        } catch {
            store.overlay = nil
            throw error
        }
        store.overlay = nil
        store.mergeCursor = last.token
        let invalid = try Self.invalidValues(foreign, store)

        let delivered = try collectingChangeSets { () throws(EngineError) in
            for r in mergers {
                try r.rebase(on: ids)
                r.processPendingChanges(.external)
            }
        }
        return ExternalMerge(transactions: foreign, changeSets: delivered, invalid: invalid)
    }

    /// The plain clients' inserted and updated objects checked against the model (fetchd's
    /// own saves are validated before they are written).
    static func invalidValues(_ transactions: [HistoryTransaction], _ store: Store) throws(EngineError)
        -> [InvalidValue]
    {
        var out: [InvalidValue] = []
        var seen: Set<ObjectID> = []
        for t in transactions where t.isExternalClient {
            for id in t.unknown where seen.insert(id).inserted {
                out.append(InvalidValue(id: id, key: nil, problem: "entity \(id.entity) is not in the model"))
            }
            for c in t.changes where c.operation != .delete && seen.insert(c.id).inserted {
                out += try store.storedProblems(c.id)
            }
        }
        return out
    }

    /// The merge after a gap: pending changes are rebased on the objects as stored now,
    /// then every merging root and its descendants deliver a refetch change set.
    private func refetchAfterGap() throws(EngineError) -> ExternalMerge {
        let transactions = try store.history(after: store.mergeCursor)
        store.mergeCursor = try store.currentToken
        let mergers = roots.filter(\.mergesChangesFromParent)
        let delivered = try collectingChangeSets { () throws(EngineError) in
            for r in mergers {
                try r.rebase(on: r.pending.keys.sorted())
                r.processPendingChanges(.external)
            }
            for c in contexts {
                var root = c
                while let p = root.parent { root = p }
                guard mergers.contains(where: { $0 === root }) else { continue }
                deliver(ChangeSet(context: c.name, changes: [], reason: .external, refetch: true))
            }
        }
        return ExternalMerge(
            transactions: transactions.filter { $0.origin != store.origin }, changeSets: delivered, gap: true)
    }

    /// Runs `body` and returns the change sets it delivered, in order: a collector joins the
    /// observer list for the while, last, so the others hear each set first as before.
    private func collectingChangeSets(_ body: () throws(EngineError) -> Void) throws(EngineError) -> [ChangeSet] {
        let collector = ChangeSetCollector()
        addObserver(collector)
        defer { removeObserver(collector) }
        try body()
        return collector.sets
    }
}

/// The change sets of one merge, in order (`collectingChangeSets`).
private final class ChangeSetCollector: GraphObserver {
    var sets: [ChangeSet] = []
    func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) { sets.append(changeSet) }
}
