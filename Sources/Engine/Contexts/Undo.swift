import Model

/// One undoable action: the stored values (one-to-many sides left out: they are read from
/// the other side) of every object it changed, before and after; nil where it did not exist.
struct UndoGroup {
    var actionName: String?
    var objects: [ObjectID: (before: Snapshot?, after: Snapshot?)] = [:]
}

/// What `context/undoState` answers.
public struct UndoState: Equatable, Sendable {
    public var canUndo: Bool
    public var canRedo: Bool
    public var undoActionName: String
    public var redoActionName: String
    public var undoCount: Int
    public var redoCount: Int
    /// Explicit groups open (`beginUndoGrouping` minus `endUndoGrouping`).
    public var groupingLevel: Int
}

/// A context's undo and redo stacks (NSUndoManager's model, protocol.md §6 "Undo"). The
/// context's own edits are captured as they are made (values before, first touch per cycle)
/// and become one group when the change cycle ends, or join the open explicit group.
final class UndoStack {
    let levels: Int?
    var undo: [UndoGroup] = []
    var redo: [UndoGroup] = []
    var open: UndoGroup?
    var depth = 0
    /// Stored values before this cycle's own edits, by object.
    var capture: [ObjectID: Snapshot?] = [:]
    /// Set while an undo or redo writes, so its writes are not captured as an edit.
    var applying = false
    /// Objects absent from this context's view by its own doing (its delete, an undo of its
    /// insert): the only absent ones undo and redo may bring back. Any other absent object
    /// was deleted by another writer (protocol.md §6 "Other writers").
    var removedHere: Set<ObjectID> = []
    /// `removedHere` is cut down to the objects the stacks name when it grows past this.
    private var pruneAt = 1024

    init(levels: Int?) { self.levels = levels }

    func record(_ group: UndoGroup) {
        redo.removeAll()
        if var o = open {
            for (id, change) in group.objects {
                // The group's first "before" stands (nil when the group created the object).
                if let first = o.objects[id] {
                    o.objects[id] = (first.before, change.after)
                } else {
                    o.objects[id] = change
                }
            }
            open = o
            return
        }
        undo.append(group)
        if let levels, undo.count > levels { undo.removeFirst(undo.count - levels) }
        pruneRemoved()
    }

    /// Keeps `removedHere` to what the stacks can still bring back (amortized: ids are never
    /// reused, so without this it only grows).
    func pruneRemoved() {
        guard removedHere.count > pruneAt else { return }
        var kept: Set<ObjectID> = []
        for group in undo + redo + (open.map { [$0] } ?? []) {
            for id in group.objects.keys where removedHere.contains(id) { kept.insert(id) }
        }
        removedHere = kept
        pruneAt = max(1024, 2 * kept.count)
    }

    /// Whether an undo or redo group, the open group or this cycle's capture names an
    /// object of `entity`.
    func names(_ entity: String) -> Bool {
        if capture.keys.contains(where: { $0.entity == entity }) { return true }
        return (undo + redo + (open.map { [$0] } ?? [])).contains { g in
            g.objects.keys.contains { $0.entity == entity }
        }
    }

    func clear() {
        undo.removeAll()
        redo.removeAll()
        open = nil
        depth = 0
        capture.removeAll()
        removedHere.removeAll()
    }
}

extension Context {
    /// Turns undo on (`levels`: the most groups kept; nil keeps every group).
    public func enableUndo(levels: Int?) {
        undoStack = UndoStack(levels: levels)
    }

    /// The stacks as an Undo menu shows them; `invalidValue` without undo.
    public func undoState() throws(EngineError) -> UndoState {
        let u = try undoEnabled()
        return UndoState(
            canUndo: !u.undo.isEmpty || !(u.open?.objects.isEmpty ?? true), canRedo: !u.redo.isEmpty,
            undoActionName: (u.open ?? u.undo.last)?.actionName ?? "", redoActionName: u.redo.last?.actionName ?? "",
            undoCount: u.undo.count + (u.open?.objects.isEmpty == false ? 1 : 0), redoCount: u.redo.count,
            groupingLevel: u.depth)
    }

    /// Starts an explicit group (nested groups fold into the outermost); the edits made so
    /// far end their own cycle first.
    public func beginUndoGrouping(actionName: String? = nil) throws(EngineError) {
        let u = try undoEnabled()
        processPendingChanges()
        if u.depth == 0 { u.open = UndoGroup(actionName: actionName) }
        u.depth += 1
    }

    /// Ends the innermost explicit group; the outermost one becomes one undoable action.
    public func endUndoGrouping() throws(EngineError) {
        let u = try undoEnabled()
        guard u.depth > 0 else {
            throw EngineError(
                .invalidValue, "no undo group is open in context \(name)", [("context", .string(name))])
        }
        processPendingChanges()
        u.depth -= 1
        if u.depth == 0, var group = u.open {
            u.open = nil
            // Edits undone within the group leave nothing to undo.
            group.objects = group.objects.filter { $0.value.before != $0.value.after }
            if !group.objects.isEmpty { u.record(group) }
        }
    }

    /// Undoes the last group (ending an open one first): the keys it changed go back to
    /// their values before it, as one change cycle. Nothing to undo changes nothing.
    public func undo() throws(EngineError) {
        let u = try undoEnabled()
        processPendingChanges()
        while u.depth > 0 { try endUndoGrouping() }
        guard let group = u.undo.popLast() else { return }
        try holdingReads { () throws(EngineError) in try write(group, forward: false) }
        u.redo.append(group)
        u.pruneRemoved()
        processPendingChanges(.undo)
    }

    /// Redoes the last undone group, as one change cycle.
    public func redo() throws(EngineError) {
        let u = try undoEnabled()
        processPendingChanges()
        while u.depth > 0 { try endUndoGrouping() }
        guard let group = u.redo.popLast() else { return }
        try holdingReads { () throws(EngineError) in try write(group, forward: true) }
        u.undo.append(group)
        u.pruneRemoved()
        processPendingChanges(.redo)
    }

    private func undoEnabled() throws(EngineError) -> UndoStack {
        guard let u = undoStack else {
            throw EngineError(
                .invalidValue, "context \(name) has no undo (create it with undo)",
                [("key", "undo"), ("context", .string(name))])
        }
        return u
    }

    /// Puts the group's objects at one side of it: only the keys the group changed are
    /// written, so what other contexts or processes changed meanwhile stays. An object another
    /// writer deleted stays deleted, and references to it are not put back.
    private func write(_ group: UndoGroup, forward: Bool) throws(EngineError) {
        guard let u = undoStack else { return }
        u.applying = true
        defer { u.applying = false }
        // Which objects stay deleted is settled first: the values written may refer to them.
        var plan: [(id: ObjectID, from: Snapshot?, to: Snapshot?, current: Snapshot?)] = []
        var gone: Set<ObjectID> = []
        for id in group.objects.keys.sorted() {
            let change = group.objects[id]!
            let (from, to) = forward ? (change.before, change.after) : (change.after, change.before)
            let current = stored(try lookup(id).values, of: id.entity)
            if to != nil, current == nil, try deletedElsewhere(id, from: from, u) {
                gone.insert(id)
            } else {
                plan.append((id, from, to, current))
            }
        }
        for (id, from, to, current) in plan {
            guard let to else {
                if current != nil {
                    try setPending(id, nil)
                    u.removedHere.insert(id)
                }
                continue
            }
            // Absent now, or made by the group: the group's side of it, whole.
            guard let from, var next = current else {
                try setPending(id, try withoutGone(to, of: id.entity, gone: gone, group: group))
                u.removedHere.remove(id)
                continue
            }
            let changed = try withoutGone(
                to.filter { from[$0.key] != $0.value }, of: id.entity, gone: gone, group: group)
            for (key, value) in changed ?? [:] { next[key] = value }
            if next != current { try setPending(id, next) }
        }
    }

    /// Whether `id`, absent here though the side put back has it, was deleted by another
    /// writer: this context's history has it present now (`from`), or a delete pending here
    /// stands over a parent that lost it, or no removal by this context explains its absence.
    private func deletedElsewhere(_ id: ObjectID, from: Snapshot?, _ u: UndoStack) throws(EngineError) -> Bool {
        if from != nil { return true }
        guard pending[id] != nil else { return !u.removedHere.contains(id) }
        if let parent { return try parent.lookup(id).values == nil }
        return try storedRow(id) == nil
    }

    /// `values` without references to objects another writer deleted: those in `gone`, and
    /// those outside the group that are absent now (the group left them as they were, so
    /// someone else removed them). A to-one becomes null, as the delete's nullify would make it.
    private func withoutGone(_ values: Snapshot?, of entity: String, gone: Set<ObjectID>, group: UndoGroup)
        throws(EngineError) -> Snapshot?
    {
        guard var values, let e = model.entity(entity) else { return values }
        for r in e.relationships {
            guard let value = values[r.name] else { continue }
            let targets = value.objectIDs
            var kept: [ObjectID] = []
            for t in targets where !gone.contains(t) {
                if group.objects.index(forKey: t) == nil, try lookup(t).values == nil { continue }
                kept.append(t)
            }
            if kept.count != targets.count { values[r.name] = r.toMany ? .objects(kept) : .null }
        }
        return values
    }

    /// At the end of a cycle: the context's own edits become an undo group (or join the open
    /// one). An undo's or redo's own writes are not edits; merges never pass through here.
    func recordUndo(_ reason: ChangeSet.Reason) {
        guard let u = undoStack, !u.capture.isEmpty else { return }
        let captured = u.capture
        u.capture.removeAll()
        guard reason != .undo && reason != .redo && reason != .rollback else { return }
        // In a merge's cycle, an object gone with no delete pending here is the other writer's.
        let own = reason != .merge && reason != .external && reason != .batch
        var group = UndoGroup()
        for (id, before) in captured {
            // What the object is now; a store that cannot say leaves no group to trust, so
            // the undo history ends here rather than record a read failure as a delete.
            guard let now = try? lookup(id) else {
                u.clear()
                return
            }
            let after = stored(now.values, of: id.entity)
            if before != after { group.objects[id] = (before, after) }
            if after != nil {
                u.removedHere.remove(id)
            } else if own || pending[id] != nil {
                u.removedHere.insert(id)
            }
        }
        if !group.objects.isEmpty { u.record(group) }
    }

    /// The parent lost `id` (another writer deleted it) while a change of it was pending
    /// here: a removal by this context, or by a child that pushed it up, no longer explains
    /// its absence, so undo leaves it deleted.
    func noteDeletedElsewhere(_ id: ObjectID) {
        undoStack?.removedHere.remove(id)
        for child in children where child.pending[id] == nil { child.noteDeletedElsewhere(id) }
    }

    /// In `setPending`: the object's stored values before this cycle's first own edit of it.
    func captureForUndo(_ id: ObjectID, _ before: Snapshot?) {
        guard let u = undoStack, !u.applying, u.capture.index(forKey: id) == nil else { return }
        u.capture[id] = .some(stored(before, of: id.entity))
    }
}
