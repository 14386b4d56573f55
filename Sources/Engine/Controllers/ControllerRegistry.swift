import Contexts
import Model

/// The controllers of one object graph, each registered with its context, in registration
/// order. The registry observes the graph: each change set of a context goes to that
/// context's controllers in registration order, and what they made of it goes, as one
/// `ControllerCycle`, to the registry's observers (told of each controller's part as it is
/// made, when several serve the context: `ControllerObserver.controllerDidApply`). A closed
/// context takes its controllers with it.
public final class ControllerRegistry: GraphObserver {
    public struct Registration {
        public let controller: FetchedResultsController
        public let context: Context
    }

    /// In registration order: the order each cycle serves them (protocol.md §10.6).
    public private(set) var registrations: [Registration] = []
    private let observers = ObserverList<any ControllerObserver>()
    private weak var graph: ObjectGraph?

    /// A registry for `graph`'s contexts, on the graph's observer list from now on (after
    /// the observers added before it).
    public init(graph: ObjectGraph) {
        self.graph = graph
        graph.addObserver(self)
    }

    public var controllers: [FetchedResultsController] { registrations.map(\.controller) }

    /// Registers after those registered before; an observer added twice is heard once.
    public func addObserver(_ observer: any ControllerObserver) { observers.add(observer) }

    public func removeObserver(_ observer: any ControllerObserver) { observers.remove(observer) }

    /// Adds `controller` on `context`, after the others. `duplicateName` when a controller
    /// of that name is registered; `unknownContext` when `context` is not in the graph.
    public func register(_ controller: FetchedResultsController, on context: Context) throws(EngineError) {
        guard !registrations.contains(where: { $0.controller.name == controller.name }) else {
            throw EngineError(
                .duplicateName, "a controller named \(controller.name) exists",
                [("controller", .string(controller.name))])
        }
        guard let graph, graph.contexts.contains(where: { $0 === context }) else {
            throw EngineError(
                .unknownContext, "no context \(context.name)", [("context", .string(context.name))])
        }
        registrations.append(Registration(controller: controller, context: context))
    }

    /// Removes the controller named `name`, if any, and tells the observers.
    public func unregister(_ name: String) {
        guard let i = registrations.firstIndex(where: { $0.controller.name == name }) else { return }
        let gone = registrations.remove(at: i)
        observers.notify { $0.controllerWasRemoved(gone.controller) }
    }

    /// The registration of the controller named `name`; `unknownController` when there is
    /// none (its context may have closed since).
    public func registration(_ name: String) throws(EngineError) -> Registration {
        guard let r = registrations.first(where: { $0.controller.name == name }) else {
            throw EngineError(.unknownController, "no controller \(name)", [("controller", .string(name))])
        }
        return r
    }

    // MARK: GraphObserver

    public func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) {
        // A context's name is unique while it is open, and a closed one left no controllers.
        let serving = registrations.filter { $0.context.name == changeSet.context }
        guard let context = serving.first?.context else { return }
        // Alone, a controller's one step would be the whole cycle, and sharing keys would only
        // hash its request: the cycle goes out as it is (about 400 instructions a change fewer
        // than the loop below, measure-change-cost.py).
        guard serving.count > 1 else {
            let controller = serving[0].controller
            let cycle = ControllerCycle(
                context: context, changeSet: changeSet,
                outcomes: [(controller, controller.applyCycle(changeSet, sharing: nil))])
            observers.notify { $0.controllersDidApply(cycle) }
            return
        }
        let keys = CycleKeys()
        var outcomes: [(controller: FetchedResultsController, notifications: CycleNotifications)] = []
        outcomes.reserveCapacity(serving.count)
        for (index, registration) in serving.enumerated() {
            let controller = registration.controller
            let notifications = controller.applyCycle(changeSet, sharing: keys)
            outcomes.append((controller, notifications))
            let step = ControllerCycle.Step(
                context: context, changeSet: changeSet, controller: controller, notifications: notifications,
                index: index)
            observers.notify { $0.controllerDidApply(step) }
        }
        let cycle = ControllerCycle(context: context, changeSet: changeSet, outcomes: outcomes)
        observers.notify { $0.controllersDidApply(cycle) }
    }

    /// Whether some controller may show `entity`'s values: one on the entity itself, or on
    /// any entity connected to it through relationships (a filter, ordering, section key
    /// or carried key can read it through a key path such as `group.title`, or a to-many
    /// such as `items.@count`). Conservative: the key paths themselves are not examined.
    public func graph(_ graph: ObjectGraph, needsBatchValuesOf entity: String) -> Bool {
        guard !registrations.isEmpty else { return false }
        let reach = graph.store.model.connectedEntities(entity)
        return registrations.contains { reach.contains($0.controller.entity) }
    }

    public func graph(_ graph: ObjectGraph, didClose context: Context) {
        let gone = registrations.filter { $0.context === context }
        guard !gone.isEmpty else { return }
        registrations.removeAll { $0.context === context }
        for r in gone { observers.notify { $0.controllerWasRemoved(r.controller) } }
    }
}

/// One change set of a context as its controllers took it.
public struct ControllerCycle {
    public let context: Context
    public let changeSet: ChangeSet
    /// One per controller on the context, in registration order; a controller the cycle
    /// left as it was has no events.
    public let outcomes: [(controller: FetchedResultsController, notifications: CycleNotifications)]

    /// One controller of a cycle that several serve, as it took the change set, before the
    /// next one takes it (`ControllerObserver.controllerDidApply`).
    public struct Step {
        public let context: Context
        public let changeSet: ChangeSet
        public let controller: FetchedResultsController
        public let notifications: CycleNotifications
        /// The controller's place among those the cycle serves, from 0.
        public let index: Int
    }
}

/// What a `ControllerRegistry` tells the observers on its list, synchronously, in
/// registration order.
public protocol ControllerObserver: AnyObject {
    /// The controllers on `cycle.context` applied one of its change sets (only contexts that
    /// have controllers are reported).
    func controllersDidApply(_ cycle: ControllerCycle)
    /// In a cycle that several controllers serve, one of them applied it: told after each,
    /// in registration order, before the next applies it and before `controllersDidApply`
    /// reports the whole cycle (with the same outcomes). An observer that passes outcomes
    /// on as they come (fetchd streams a big cycle's notifications) starts here; a cycle of
    /// one controller has no steps.
    func controllerDidApply(_ step: ControllerCycle.Step)
    /// `controller` left the registry: unregistered, or its context closed.
    func controllerWasRemoved(_ controller: FetchedResultsController)
}

extension ControllerObserver {
    public func controllerDidApply(_ step: ControllerCycle.Step) {}
    public func controllerWasRemoved(_ controller: FetchedResultsController) {}
}
