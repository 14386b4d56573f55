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
    /// and remembering 200,000 snapshots by id cost more than reading them.
    private let shared: Bool
    private var snapshots: [ObjectID: Snapshot?] = [:]
    private var objects: [ControllersState.Projection: [ObjectID: EncodedObject?]] = [:]

    init(_ context: Context, shared: Bool = true) {
        self.context = context
        self.shared = shared
    }

    func snapshot(_ id: ObjectID) -> Snapshot? {
        guard shared else { return context.snapshot(of: id) }
        if let known = snapshots[id] { return known }
        let values = context.snapshot(of: id)
        snapshots[id] = values
        return values
    }

    /// The object as a notification carries it under `entry`'s projection, with its bytes;
    /// nil for ids only or an object the context no longer has.
    func object(_ id: ObjectID, for entry: ControllersState.Entry) -> EncodedObject? {
        if let known = objects[entry.projection]?[id] { return known }
        var object: EncodedObject?
        if let values = snapshot(id) {
            switch entry.projection {
            case .allValues: object = EncodedObject(WireObject.json(id, values, entity: entry.entity))
            case .keys(let keys): object = EncodedObject(WireObject.json(id, values, entity: entry.entity, keys: keys))
            case .idsOnly: break
            }
        }
        objects[entry.projection, default: [:]][id] = .some(object)
        return object
    }
}
