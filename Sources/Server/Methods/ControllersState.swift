import Contexts
import Controllers
import Model

/// The controllers by name, in creation order (the order their notifications go out).
public final class ControllersState {
    /// What change notifications carry for one controller (`notify` of controller/create).
    public enum Projection: Equatable {
        case allValues
        case keys(Set<String>)
        case idsOnly
    }

    public final class Entry {
        public let controller: FetchedResultsController
        public let context: Context
        public let entity: Entity
        public let projection: Projection
        init(controller: FetchedResultsController, context: Context, entity: Entity, projection: Projection) {
            self.controller = controller
            self.context = context
            self.entity = entity
            self.projection = projection
        }
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    func add(_ entry: Entry) throws(EngineError) {
        guard !entries.contains(where: { $0.controller.name == entry.controller.name }) else {
            throw EngineError(.duplicateName, "a controller named \(entry.controller.name) exists",
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

    func remove(_ name: String) { entries.removeAll { $0.controller.name == name } }

    func removeAll() { entries.removeAll() }

    /// Drops controllers whose context is no longer in the graph.
    func prune(_ graph: ObjectGraph?) {
        guard let graph else { entries.removeAll(); return }
        entries.removeAll { e in !graph.contexts.contains { $0 === e.context } }
    }
}
