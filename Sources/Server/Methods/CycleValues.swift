import Contexts
import JSON
import Model

/// What the controllers of one context need from one cycle, read once however many of them
/// report the object: its values (a context read can be a store query) and its JSON under
/// each projection (in rows mode every controller showing the row would encode it again).
/// Lives for one delivery: the context does not change while its controllers are notified.
final class CycleValues {
    let context: Context
    /// Whether more than one controller reads: alone, a controller reads each object once,
    /// and remembering 200,000 snapshots or encoded objects by id cost more than making them.
    private let shared: Bool
    /// The cycle's changes: a changed object's values after the cycle are what the context
    /// reads now, without the read (of a 200,000-row load, each through the store's rows
    /// just written).
    private let changes: ChangeSet?
    /// Whether the entity last asked about derives no relationship.
    private var rowIsObject: (entity: String, all: Bool)?
    private var snapshots: [ObjectID: Snapshot?] = [:]
    private var objects: [ControllersState.Projection: [ObjectID: EncodedObject?]] = [:]

    init(_ context: Context, changes: ChangeSet? = nil, shared: Bool = true) {
        self.context = context
        // A few objects the context has just read cost less to read again than to look up
        // here (one change: about 400 instructions, measure-change-cost.py).
        self.changes = (changes?.changes.count ?? 0) >= Self.lookUpFrom ? changes : nil
        self.shared = shared
    }

    /// How many changes a cycle has before its objects' values are looked up in it. Debug
    /// builds look every cycle's up, so every test checks them against the context's.
    #if DEBUG
        static let lookUpFrom = 1
    #else
        static let lookUpFrom = 64
    #endif

    func snapshot(_ id: ObjectID) -> Snapshot? {
        if let i = changedIndex(id) { return changes!.changes[i].after }
        return readSnapshot(id)
    }

    /// `body` given `snapshot(id)`; a changed object's values are lent from the change set,
    /// so a column of 200,000 rows copies no change and retains no snapshot per row (each a
    /// cache miss on a load that large; `ControllerDifference`).
    func withSnapshot<R>(_ id: ObjectID, _ body: (Snapshot?) -> R) -> R {
        lend(id, changedIndex(id), body)
    }

    /// `withSnapshot` for ids given in ascending order: `cursor` (0 at first) is where the
    /// change set's search for the next one starts (`ChangeSet.index(of:from:)`).
    func withSnapshot<R>(_ id: ObjectID, cursor: inout Int, _ body: (Snapshot?) -> R) -> R {
        let i = changedIndex(id, from: cursor)
        if let i { cursor = i + 1 }
        return lend(id, i, body)
    }

    private func lend<R>(_ id: ObjectID, _ i: Int?, _ body: (Snapshot?) -> R) -> R {
        guard let i else { return body(readSnapshot(id)) }
        return changes!.changes.withUnsafeBufferPointer { body($0[i].after) }
    }

    private func readSnapshot(_ id: ObjectID) -> Snapshot? {
        guard shared else { return context.snapshot(of: id) }
        if let known = snapshots[id] { return known }
        let values = context.snapshot(of: id)
        snapshots[id] = values
        return values
    }

    /// Where a changed object's change is in the cycle's changes, when its values after the
    /// cycle are all its values: its entity derives no relationship (the context's view adds
    /// those to the stored row).
    private func changedIndex(_ id: ObjectID, from start: Int = 0) -> Int? {
        guard let changes else { return nil }
        if rowIsObject?.entity != id.entity {
            rowIsObject = (id.entity, context.model.derivedRelationships(of: id.entity).isEmpty)
        }
        guard rowIsObject!.all, let i = changes.index(of: id, from: start) else { return nil }
        assert(
            changes.changes[i].after == context.snapshot(of: id), "the change set's values of \(id) are the context's")
        return i
    }

    /// The object as a notification carries it under `entry`'s projection, with its bytes;
    /// nil for ids only or an object the context no longer has.
    func object(_ id: ObjectID, for entry: ControllersState.Entry) -> EncodedObject? {
        if shared, let known = objects[entry.projection]?[id] { return known }
        var object: EncodedObject?
        if let values = snapshot(id) {
            switch entry.projection {
            case .allValues: object = EncodedObject(id, values, entity: entry.entity)
            case .keys(let keys): object = EncodedObject(id, values, entity: entry.entity, keys: keys)
            case .idsOnly: break
            }
        }
        // Alone, a controller reports each object once: remembering it costs a hash a row.
        if shared { objects[entry.projection, default: [:]][id] = .some(object) }
        return object
    }
}
