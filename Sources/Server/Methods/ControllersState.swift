import Contexts
import Controllers
import Model

/// The controllers by name, in creation order (the order their notifications go out). Every
/// change set of a context is applied to the controllers on that context, and their events
/// are queued as notifications before the response of the request that caused the cycle.
public final class ControllersState: ChangeCycleObserver {
    /// What change notifications carry for one controller (`notify` of controller/create).
    public enum Projection: Hashable {
        case allValues
        case keys(Set<String>)
        case idsOnly
    }

    /// How a cycle goes out (`notify.mode`): a notification per change, or one per cycle.
    public enum Delivery: String, Equatable, CaseIterable, Sendable {
        case rows
        case difference
    }

    public final class Entry {
        public let controller: FetchedResultsController
        public let context: Context
        public let entity: Entity
        public let projection: Projection
        public let delivery: Delivery
        init(
            controller: FetchedResultsController, context: Context, entity: Entity, projection: Projection,
            delivery: Delivery = .rows
        ) {
            self.controller = controller
            self.context = context
            self.entity = entity
            self.projection = projection
            self.delivery = delivery
        }
    }

    public private(set) var entries: [Entry] = []
    private let outbox: Outbox
    /// The graph the controllers' contexts belong to (the last one opened).
    private weak var graph: ObjectGraph?

    init(outbox: Outbox) { self.outbox = outbox }

    public func contextDidChange(_ changeSet: ChangeSet) {
        prune(graph)
        var shared: CycleValues?
        for entry in entries where entry.context.name == changeSet.context {
            if shared == nil { shared = CycleValues(entry.context) }
            outbox.send(entry.controller.applyCycle(changeSet), of: entry, values: shared!)
        }
    }

    /// A new store replaces every context, and so every controller.
    public func storeDidOpen(_ graph: ObjectGraph) {
        self.graph = graph
        removeAll()
    }

    func add(_ entry: Entry) throws(EngineError) {
        guard !entries.contains(where: { $0.controller.name == entry.controller.name }) else {
            throw EngineError(
                .duplicateName, "a controller named \(entry.controller.name) exists",
                [("controller", .string(entry.controller.name))])
        }
        entries.append(entry)
    }

    /// The controller named `name`; `unknownController` when there is none, or when its
    /// context has been closed since (the controller goes with it).
    func entry(_ name: String, in graph: ObjectGraph?) throws(EngineError) -> Entry {
        prune(graph)
        guard let e = entries.first(where: { $0.controller.name == name }) else {
            throw EngineError(.unknownController, "no controller \(name)", [("controller", .string(name))])
        }
        return e
    }

    /// Queues one controller's events (a cycle that is not a context's: controller/setRequest).
    func send(_ events: [ControllerEvent], of entry: Entry) {
        outbox.send(events, of: entry, values: CycleValues(entry.context))
    }

    func remove(_ name: String) { entries.removeAll { $0.controller.name == name } }

    func removeAll() { entries.removeAll() }

    /// Drops controllers whose context is no longer in the graph.
    func prune(_ graph: ObjectGraph?) {
        guard let graph else {
            entries.removeAll()
            return
        }
        entries.removeAll { e in !graph.contexts.contains { $0 === e.context } }
    }
}
