import Model
import Store

/// A managed-object context: a scratch pad of unsaved inserts, updates and deletes over its
/// parent's view (a root's parent is the store).
///
/// A context sees its parent live: what the parent changes shows through wherever this
/// context has not changed the object itself. The to-many side of a one-to-many is never
/// stored in a pending change: it is read backwards from the to-one side in this context's
/// view, so both sides always agree, whatever the parent does meanwhile. Every change to
/// what a context sees is remembered (the value before) until its next change cycle.
public final class Context {
    public let name: String
    public let parent: Context?
    /// For a root: take other roots' saves as a change cycle (and rebase pending changes on
    /// them). Without it, other saves reach this context's objects only through conflicts.
    public let mergesChangesFromParent: Bool
    public let mergePolicy: MergePolicy
    /// Recorded with this root's saves in the store's history (protocol.md §5).
    public var transactionAuthor: String?
    /// Weak: the graph owns its contexts. A context outliving its graph still reads and
    /// writes its store, but delivers no change sets and merges into no one.
    weak var graph: ObjectGraph?
    let store: Store
    /// Children in creation order; a change here is a change there too.
    var children: [Context] = []
    private(set) var pending: [ObjectID: PendingChange] = [:]
    /// Pending objects by entity (count), so reads know when the store's answer stands.
    private var pendingCount: [String: Int] = [:]
    /// For the one-to-many reads: "Entity.relationship" -> target -> pending objects here
    /// whose to-one `relationship` points at target.
    private var referrerIndex: [String: [ObjectID: Set<ObjectID>]] = [:]
    /// For each object this context saw change since the last cycle: its value before.
    var cycleBefore: [ObjectID: Snapshot?] = [:]
    /// A batch's objects noted at once (`noteNew(run:keys:)`, `noteChanged(before:after:entity:)`).
    var cycleRun: NotedRun = .none
    /// Undo and redo (Undo.swift); nil until enabled.
    var undoStack: UndoStack?
    /// A batch request's transient root (ObjectGraph+Batch.swift): nobody sees it, so it
    /// notes nothing and delivers no change set; the roots that take its save do, with
    /// reason `batch`.
    var isBatch = false

    init(name: String, parent: Context?, mergesChangesFromParent: Bool, mergePolicy: MergePolicy, graph: ObjectGraph) {
        self.name = name
        self.parent = parent
        self.mergesChangesFromParent = mergesChangesFromParent
        self.mergePolicy = mergePolicy
        self.graph = graph
        self.store = graph.store
        self.model = graph.store.model
    }

    /// A copy made once: reading it through the store on every object costs retains.
    public let model: ObjectModel
    public var isRoot: Bool { parent == nil }
    /// Unsaved changes exist.
    public var hasChanges: Bool { pending.values.contains { $0.isEffective } }
    /// Something changed since the last change cycle.
    public var isDirty: Bool { !cycleBefore.isEmpty || cycleRun.count > 0 }

    // MARK: The view

    /// The object's values as this context sees them; nil when it does not exist here.
    public func object(_ id: ObjectID) throws(EngineError) -> Snapshot? {
        guard var values = try lookup(id).values else { return nil }
        for r in model.derivedRelationships(of: id.entity) where values[r.name] == nil || chainHasPending(r.destination)
        {
            values[r.name] = .objects(try derivedIDs(id, r).sorted())
        }
        return values
    }

    /// Stored values (without one-to-many sides when pending somewhere) and the store
    /// version they are based on, through the chain of parents.
    func lookup(_ id: ObjectID) throws(EngineError) -> (values: Snapshot?, version: Int64?) {
        if let p = pending[id] { return (p.values, p.baseVersion) }
        if let parent { return try parent.lookup(id) }
        guard model.hasEntity(id.entity), let row = try storedRow(id) else { return (nil, nil) }
        return (row.values, row.version)
    }

    /// The objects whose to-one inverse of `r` points at `target` in this view.
    func derivedIDs(_ target: ObjectID, _ r: Relationship) throws(EngineError) -> Set<ObjectID> {
        var ids: Set<ObjectID>
        if let parent {
            ids = try parent.derivedIDs(target, r)
        } else {
            ids = Set(try store.relatedIDs(of: target, r.name))
        }
        if pendingCount[r.destination, default: 0] > 0 {
            ids = ids.filter { pending[$0] == nil }
            ids.formUnion(referrerIndex["\(r.destination).\(r.inverse)"]?[target] ?? [])
        }
        return ids
    }

    /// Whether this context holds a pending change (effective or not) of `entity`.
    func hasPending(of entity: String) -> Bool { pendingCount[entity, default: 0] > 0 }

    /// Objects of `entity` with a pending change here or in an ancestor: those a keyed fetch
    /// evaluates in memory on top of the store's rows.
    public func pendingObjectCount(of entity: String) -> Int {
        var count = 0
        var c: Context? = self
        while let context = c {
            count += context.pendingCount[entity, default: 0]
            c = context.parent
        }
        return count
    }

    private func chainHasPending(_ entity: String) -> Bool { pendingObjectCount(of: entity) > 0 }

    /// `object(id)`, or `unknownObject` naming it.
    func existing(_ id: ObjectID) throws(EngineError) -> Snapshot {
        guard model.entity(id.entity) != nil else {
            throw EngineError(.unknownEntity, "no entity \(id.entity)", [("entity", .string(id.entity))])
        }
        guard let values = try object(id) else {
            throw EngineError(
                .unknownObject, "no object \(id) in context \(name)",
                [("id", .string(id.description)), ("context", .string(name))])
        }
        return values
    }

    /// Values without the one-to-many sides (which are read, never stored).
    func stored(_ values: Snapshot?, of entity: String) -> Snapshot? {
        guard var values else { return nil }
        for r in model.derivedRelationships(of: entity) { values[r.name] = nil }
        return values
    }

    /// The objects whose one-to-many side reads `values` (its to-one targets).
    func referencedTargets(_ values: Snapshot?, of entity: String) -> [ObjectID] {
        guard let values else { return [] }
        return model.referencingRelationships(of: entity).compactMap {
            if case .object(let t)? = values[$0.name] { return t } else { return nil }
        }
    }

    // MARK: Recording changes

    /// Sets this context's own value of `id` (nil deletes), remembering what it and the
    /// objects whose one-to-many sides it changes looked like before, here and in the
    /// children that see them through this context.
    func setPending(_ id: ObjectID, _ newValues: Snapshot?, isNew: Bool = false, baseVersion: Int64?? = nil)
        throws(EngineError)
    {
        let values = stored(newValues, of: id.entity)
        let existingEntry = pending[id]
        let old: (values: Snapshot?, version: Int64?)
        if let existingEntry {
            old = (existingEntry.values, existingEntry.baseVersion)
        } else if isNew {
            old = (nil, nil)
        } else if let parent {
            old = try parent.lookup(id)
        } else {
            old = try storedRow(id).map { ($0.values, $0.version) } ?? (nil, nil)
        }
        captureForUndo(id, old.values)
        if isNew { noteNew(id) } else { try noteCurrent(id) }
        for t in referencedTargets(old.values, of: id.entity) + referencedTargets(values, of: id.entity) {
            try noteCurrent(t)
        }

        unindex(id)
        if var entry = existingEntry {
            entry.values = values
            // Back to what the parent shows: nothing left to save, nothing pinned.
            pending[id] = (entry.isInsert && values == nil) || (!entry.isInsert && !entry.isEffective) ? nil : entry
        } else {
            let entry = PendingChange(
                values: values, base: stored(old.values, of: id.entity), baseVersion: baseVersion ?? old.version)
            guard entry.isEffective else { return }
            pending[id] = entry
            pendingCount[id.entity, default: 0] += 1
        }
        if pending[id] == nil { pendingCount[id.entity, default: 1] -= 1 } else { index(id) }
    }

    private func index(_ id: ObjectID) {
        guard let values = pending[id]?.values else { return }
        for r in model.referencingRelationships(of: id.entity) {
            if case .object(let t)? = values[r.name] {
                referrerIndex["\(id.entity).\(r.name)", default: [:]][t, default: []].insert(id)
            }
        }
    }

    private func unindex(_ id: ObjectID) {
        guard let values = pending[id]?.values else { return }
        for r in model.referencingRelationships(of: id.entity) {
            if case .object(let t)? = values[r.name] { referrerIndex["\(id.entity).\(r.name)"]?[t]?.remove(id) }
        }
    }

    /// Remembers the current value of `id` as its value before this cycle (the first time
    /// only), here and in every descendant that sees `id` through this context.
    func noteCurrent(_ id: ObjectID) throws(EngineError) {
        if isBatch { return }
        if cycleBefore.index(forKey: id) == nil { cycleBefore[id] = .some(try object(id)) }
        for child in children where child.pending[id] == nil { try child.noteCurrent(id) }
    }

    /// Room for `count` more noted objects here and in the children that see them (a batch
    /// noting 100k objects grows the table once, not many times).
    func reserveNotes(_ count: Int) {
        if isBatch { return }
        cycleBefore.reserveCapacity(cycleBefore.count + count)
        for child in children { child.reserveNotes(count) }
    }

    /// A new id: it existed nowhere before.
    func noteNew(_ id: ObjectID) {
        if isBatch { return }
        if cycleBefore.index(forKey: id) == nil { cycleBefore[id] = .some(nil) }
        for child in children where child.pending[id] == nil { child.noteNew(id) }
    }

    /// New ids, ascending (a batch's run of numbers), with the values they are written with
    /// (nothing refers to them yet, so these are what a read would answer) and the keys
    /// every one of them has: noted as `noteNew` notes each one. A batch commits its own
    /// cycle, so a cycle holds one run; a second would be noted object by object.
    func noteNew(run: [(ObjectID, Snapshot)], keys: Set<String>) {
        if isBatch || run.isEmpty { return }
        assert(zip(run, run.dropFirst()).allSatisfy { $0.0 < $1.0 }, "a run is ascending")
        guard cycleRun.count == 0 else {
            for (id, _) in run { noteNew(id) }
            return
        }
        // Shared, not copied.
        cycleRun = .inserted(run, keys: keys)
        // A new id is pending in no child.
        for child in children { child.noteNew(run: run, keys: keys) }
    }

    /// Saved objects of `entity` a batch changes, ascending, as it read them and as it writes
    /// them (index by index; nil: deleted): noted as `noteCurrent` notes each one, where that is what
    /// this view shows, that is when nothing of the entity is pending here or above and
    /// nothing of it is read backwards; otherwise (and for a second run) object by object.
    /// Called before the batch writes (the fallback reads the rows as they were). `keys`: the
    /// only keys a row's values can change by (`NotedRun.changed`), nil when any can.
    func noteChanged(
        before: [(ObjectID, StoredObject?)], after: [(ObjectID, StoredObject?)], entity: String,
        keys: [String]? = nil
    ) throws(EngineError) {
        if isBatch || before.isEmpty { return }
        assert(before.count == after.count && zip(before, after).allSatisfy { $0.0 == $1.0 }, "row by row")
        guard cycleRun.count == 0, !chainHasPending(entity), model.derivedRelationships(of: entity).isEmpty else {
            // noteCurrent notes the children too.
            for (id, _) in before { try noteCurrent(id) }
            return
        }
        cycleRun = .changed(before: before, after: after, keys: keys)
        for child in children { try child.noteChanged(before: before, after: after, entity: entity, keys: keys) }
    }

    /// A batch that noted its rows and then failed wrote nothing: its run is no change.
    /// (Objects noted one by one read the same before and after, so they show none.)
    func forgetNotedRun() {
        cycleRun = .none
        for child in children { child.forgetNotedRun() }
    }

    /// Notes `id`, and the one-to-many sides its current and `next` values point at.
    func noteCurrent(_ id: ObjectID, next: Snapshot?) throws(EngineError) {
        if isBatch { return }
        try noteCurrent(id)
        // Without references there is nothing more to note (and no second read of the object).
        guard !model.referencingRelationships(of: id.entity).isEmpty else { return }
        for t in referencedTargets(try object(id), of: id.entity) + referencedTargets(next, of: id.entity) {
            try noteCurrent(t)
        }
    }

    /// Drops every pending change (their values become the parent's again), noting them.
    func discardPending() throws(EngineError) {
        for (id, p) in pending {
            try noteCurrent(id)
            // The value coming back is the parent's now, which may differ from the base.
            let next: Snapshot?
            if let parent { next = try parent.lookup(id).values } else { next = try store.read(id)?.values }
            for t in referencedTargets(p.values, of: id.entity) + referencedTargets(next, of: id.entity) {
                try noteCurrent(t)
            }
        }
        pending.removeAll()
        pendingCount.removeAll()
        referrerIndex.removeAll()
    }

    /// Forgets every pending change without noting anything: the caller noted what changes.
    func clearPending() {
        pending.removeAll()
        pendingCount.removeAll()
        referrerIndex.removeAll()
    }

    /// Replaces one pending change as it is (a rebase after a merge), noting the change.
    func replacePending(_ id: ObjectID, _ entry: PendingChange?) throws(EngineError) {
        try noteCurrent(id)
        if let old = pending[id] { for t in referencedTargets(old.values, of: id.entity) { try noteCurrent(t) } }
        for t in referencedTargets(entry?.values, of: id.entity) { try noteCurrent(t) }
        unindex(id)
        if pending[id] != nil { pendingCount[id.entity, default: 1] -= 1 }
        pending[id] = entry
        if entry != nil {
            pendingCount[id.entity, default: 0] += 1
            index(id)
        }
    }

    // MARK: Change cycles

    /// Ends the current change cycle: reports what changed (one `ChangeSet`, if anything
    /// did), then lets the children report what they saw change (for the same reason).
    public func processPendingChanges(_ reason: ChangeSet.Reason = .request) {
        recordUndo(reason)
        if isDirty {
            // Sorted with their values: no second lookup per object.
            let noted = cycleBefore.sorted(by: { $0.key < $1.key })
            let run = cycleRun
            cycleBefore.removeAll()
            cycleRun = .none
            var changes: [ChangeSet.Change] = []
            changes.reserveCapacity(noted.count + run.count)
            var keys = DifferingKeys()
            // The two lists merged in id order; an id in both is the table's (noted the same way).
            var i = 0
            var j = 0
            while i < noted.count || j < run.count {
                if i < noted.count && (j == run.count || noted[i].key <= run.id(j)) {
                    let (id, before) = noted[i]
                    i += 1
                    if j < run.count && run.id(j) == id { j += 1 }
                    let after = snapshot(of: id)
                    // No key differs exactly when the two are equal: one pass over the values, not two.
                    let changed = keys(before, after)
                    switch (before, after) {
                    case (nil, nil): continue
                    case (_?, _?) where changed.isEmpty: continue
                    default: break
                    }
                    changes.append(ChangeSet.Change(id: id, before: before, after: after, changedKeys: changed))
                } else {
                    if let change = run.change(j, &keys) { changes.append(change) }
                    j += 1
                }
            }
            if !changes.isEmpty {
                graph?.deliver(ChangeSet(context: name, changes: changes, reason: reason))
                // Released after the answer when the graph defers that: a big batch's changes
                // would otherwise release a million rows here, before the response goes out.
                graph?.releaseLater(changes)
            }
            if run.count > 0 { graph?.releaseLater(run) }
        }
        for child in children { child.processPendingChanges(reason) }
    }
}

extension Context: ObjectView {
    public func snapshot(of id: ObjectID) -> Snapshot? {
        // Views cannot throw (filters and orderings evaluate through them): an object whose
        // read fails is absent here, as in the change set; a throwing read reports the error.
        do { return try object(id) } catch { return nil }
    }

    public func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
        guard let r = model.entity(entity)?.relationship(relationship), let values = snapshot(of: target) else {
            return []
        }
        return (values[r.inverse] ?? .null).objectIDs.filter { $0.entity == entity }
    }
}
