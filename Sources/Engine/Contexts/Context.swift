import Model
import Store

/// A managed-object context: a scratch pad of unsaved inserts, updates and deletes over its
/// parent's view (a root's parent is the store).
///
/// A context sees its parent live: what the parent changes shows through wherever this
/// context has not changed the object itself. Every change to what a context sees is
/// remembered (the value before) until its next change cycle reports it.
public final class Context {
    public let name: String
    public let parent: Context?
    /// For a root: take other roots' saves as a change cycle (and rebase pending changes on
    /// them). Without it, other saves reach this context's objects only through conflicts.
    public let mergesChangesFromParent: Bool
    public let mergePolicy: MergePolicy
    /// Weak: the graph owns its contexts. A context outliving its graph still reads and
    /// writes its store, but delivers no change sets and merges into no one.
    weak var graph: ObjectGraph?
    let store: Store
    /// Children in creation order; a change here is a change there too.
    var children: [Context] = []
    var pending: [ObjectID: PendingChange] = [:]
    /// For each object this context saw change since the last cycle: its value before.
    var cycleBefore: [ObjectID: Snapshot?] = [:]

    init(name: String, parent: Context?, mergesChangesFromParent: Bool, mergePolicy: MergePolicy, graph: ObjectGraph) {
        self.name = name
        self.parent = parent
        self.mergesChangesFromParent = mergesChangesFromParent
        self.mergePolicy = mergePolicy
        self.graph = graph
        self.store = graph.store
    }

    var model: ObjectModel { store.model }
    public var isRoot: Bool { parent == nil }
    /// Unsaved changes exist.
    public var hasChanges: Bool { pending.values.contains { $0.isEffective } }
    /// Something changed since the last change cycle.
    public var isDirty: Bool { !cycleBefore.isEmpty }

    // MARK: The view

    /// The object's values as this context sees them; nil when it does not exist here.
    public func object(_ id: ObjectID) throws(EngineError) -> Snapshot? {
        try lookup(id).values
    }

    /// Values and the store version they are based on, through the chain of parents.
    func lookup(_ id: ObjectID) throws(EngineError) -> (values: Snapshot?, version: Int64?) {
        if let p = pending[id] { return (p.values, p.baseVersion) }
        if let parent { return try parent.lookup(id) }
        guard model.entity(id.entity) != nil, let row = try store.read(id) else { return (nil, nil) }
        return (row.values, row.version)
    }

    /// `object(id)`, or `unknownObject` naming it.
    func existing(_ id: ObjectID) throws(EngineError) -> Snapshot {
        guard model.entity(id.entity) != nil else {
            throw EngineError(.unknownEntity, "no entity \(id.entity)", [("entity", .string(id.entity))])
        }
        guard let values = try object(id) else {
            throw EngineError(.unknownObject, "no object \(id) in context \(name)",
                              [("id", .string(id.description)), ("context", .string(name))])
        }
        return values
    }

    // MARK: Recording changes

    /// Sets this context's own value of `id` (nil deletes), remembering the value before for
    /// the next cycle here and in the children that see it through this context.
    func setPending(_ id: ObjectID, _ values: Snapshot?, isNew: Bool = false, baseVersion: Int64?? = nil) throws(EngineError) {
        if var p = pending[id] {
            note(id, before: p.values)
            if p.isInsert && values == nil {
                pending[id] = nil
            } else {
                p.values = values
                pending[id] = p
            }
            return
        }
        var base: (values: Snapshot?, version: Int64?) = (nil, nil)
        if !isNew {
            if let parent { base = try parent.lookup(id) } else { base = try rootLookup(id) }
        }
        note(id, before: base.values)
        if base.values == nil && values == nil { return }
        pending[id] = PendingChange(values: values, base: base.values, baseVersion: baseVersion ?? base.version)
    }

    private func rootLookup(_ id: ObjectID) throws(EngineError) -> (values: Snapshot?, version: Int64?) {
        guard let row = try store.read(id) else { return (nil, nil) }
        return (row.values, row.version)
    }

    /// Remembers `before` as this context's value of `id` before the current cycle (the first
    /// time only), and likewise in every descendant that sees `id` through this context.
    func note(_ id: ObjectID, before: Snapshot?) {
        if cycleBefore.index(forKey: id) == nil { cycleBefore[id] = .some(before) }
        for child in children where child.pending[id] == nil { child.note(id, before: before) }
    }

    /// Drops every pending change (their values become the parent's again), noting them.
    func discardPending() {
        for (id, p) in pending { note(id, before: p.values) }
        pending.removeAll()
    }

    // MARK: Change cycles

    /// Ends the current change cycle: reports what changed (one `ChangeSet`, if anything
    /// did), then lets the children report what they saw change.
    public func processPendingChanges() {
        if !cycleBefore.isEmpty {
            let recorded = cycleBefore
            cycleBefore.removeAll()
            var changes: [ChangeSet.Change] = []
            for id in recorded.keys.sorted() {
                let before = recorded[id]!
                let after = (try? object(id)) ?? nil
                guard before != after else { continue }
                changes.append(ChangeSet.Change(id: id, before: before, after: after, changedKeys: differingKeys(before, after)))
            }
            if !changes.isEmpty { graph?.deliver(ChangeSet(context: name, changes: changes)) }
        }
        for child in children { child.processPendingChanges() }
    }
}

extension Context: ObjectView {
    public func snapshot(of id: ObjectID) -> Snapshot? {
        (try? object(id)) ?? nil
    }

    public func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
        guard let r = model.entity(entity)?.relationship(relationship), let values = snapshot(of: target) else { return [] }
        return (values[r.inverse] ?? .null).objectIDs.filter { $0.entity == entity }
    }
}
