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
    }

    func clear() {
        undo.removeAll()
        redo.removeAll()
        open = nil
        depth = 0
        capture.removeAll()
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
        try write(group, forward: false)
        u.redo.append(group)
        processPendingChanges(.undo)
    }

    /// Redoes the last undone group, as one change cycle.
    public func redo() throws(EngineError) {
        let u = try undoEnabled()
        processPendingChanges()
        while u.depth > 0 { try endUndoGrouping() }
        guard let group = u.redo.popLast() else { return }
        try write(group, forward: true)
        u.undo.append(group)
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
    /// written, so what other contexts or processes changed meanwhile stays; an object the
    /// group changed that is gone now is left gone.
    private func write(_ group: UndoGroup, forward: Bool) throws(EngineError) {
        guard let u = undoStack else { return }
        u.applying = true
        defer { u.applying = false }
        for id in group.objects.keys.sorted() {
            let change = group.objects[id]!
            let (from, to) = forward ? (change.before, change.after) : (change.after, change.before)
            let current = stored(try lookup(id).values, of: id.entity)
            guard let to else {
                if current != nil { try setPending(id, nil) }
                continue
            }
            // Absent now, or made by the group: the group's side of it, whole.
            guard let from, var next = current else {
                try setPending(id, to)
                continue
            }
            for (key, value) in to where from[key] != value { next[key] = value }
            if next != current { try setPending(id, next) }
        }
    }

    /// At the end of a cycle: the context's own edits become an undo group (or join the open
    /// one). An undo's or redo's own writes are not edits; merges never pass through here.
    func recordUndo(_ reason: ChangeSet.Reason) {
        guard let u = undoStack, !u.capture.isEmpty else { return }
        let captured = u.capture
        u.capture.removeAll()
        guard reason != .undo && reason != .redo && reason != .rollback else { return }
        var group = UndoGroup()
        for (id, before) in captured {
            let after = stored((try? lookup(id))?.values ?? nil, of: id.entity)
            if before != after { group.objects[id] = (before, after) }
        }
        if !group.objects.isEmpty { u.record(group) }
    }

    /// In `setPending`: the object's stored values before this cycle's first own edit of it.
    func captureForUndo(_ id: ObjectID, _ before: Snapshot?) {
        guard let u = undoStack, !u.applying, u.capture.index(forKey: id) == nil else { return }
        u.capture[id] = .some(stored(before, of: id.entity))
    }
}
