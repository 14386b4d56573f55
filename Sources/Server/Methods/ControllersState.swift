import Contexts
import Controllers
import Logging
import Model

/// The controllers' wire side: what each sends (projection, delivery) and the encoding of
/// their cycles. The engine's `ControllerRegistry` holds them with their contexts and applies
/// each change set; their events are queued here as notifications, before the response of
/// the request that caused the cycle.
public final class ControllersState: ControllerObserver, StoreOpenObserver {
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

        /// What the controller's notifications start with, encoded at its first cycle: its
        /// name and entity never change (setRequest keeps the entity, protocol.md §9).
        lazy var label = ControllerLabel(name: controller.name, entity: controller.entity)
    }

    /// The engine's controllers of the open graph (their order and contexts), which applies
    /// each change set to them; nil before the first store opens. Weak: the graph holds it
    /// (it is on the graph's observer list) and it holds this state, as its observer.
    public private(set) weak var registry: ControllerRegistry?
    /// What the server adds to each registered controller, by name.
    private var byName: [String: Entry] = [:]
    private let outbox: Outbox
    /// The server's logger as it was made.
    private let logger: Logger

    init(outbox: Outbox, logger: Logger) {
        self.outbox = outbox
        self.logger = logger
    }

    /// In creation order (the order their notifications go out).
    public var entries: [Entry] { registry?.controllers.compactMap { byName[$0.name] } ?? [] }

    /// The values the controllers of the cycle under way share, once its first step is queued
    /// (a cycle that several controllers serve goes out step by step).
    private var stepValues: CycleValues?

    /// One controller of a cycle that several serve: its notifications are queued at once,
    /// and the outbox may hand a big cycle's first part to the transport while the next
    /// controllers work (`Outbox.streamIfMany`).
    public func controllerDidApply(_ step: ControllerCycle.Step) {
        if step.index == 0 { stepValues = CycleValues(step.context, changes: step.changeSet, shared: true) }
        queue(step.notifications, of: step.controller, values: stepValues!)
        outbox.streamIfMany()
    }

    /// One cycle of a context, as its controllers took it: their notifications, each
    /// controller's whole before the next's (already queued step by step when several
    /// controllers serve it).
    public func controllersDidApply(_ cycle: ControllerCycle) {
        guard stepValues == nil else {
            stepValues = nil
            return
        }
        // One controller (several go step by step): each object it reports is read once.
        let values = CycleValues(cycle.context, changes: cycle.changeSet, shared: false)
        for (controller, notifications) in cycle.outcomes { queue(notifications, of: controller, values: values) }
    }

    private func queue(
        _ notifications: CycleNotifications, of controller: FetchedResultsController, values: CycleValues
    ) {
        guard let entry = byName[controller.name] else { return }
        if case .failed(let error) = notifications {
            logger.warning("controller \(controller.name) could not fetch; it fetches at its next cycle: \(error)")
        }
        outbox.send(notifications, of: entry, values: values)
    }

    public func controllerWasRemoved(_ controller: FetchedResultsController) {
        byName[controller.name] = nil
    }

    /// A new store replaces every context, and so every controller.
    public func storeDidOpen(_ graph: ObjectGraph) {
        registry?.removeObserver(self)
        byName.removeAll()
        let registry = ControllerRegistry(graph: graph)
        registry.addObserver(self)
        self.registry = registry
    }

    func add(_ entry: Entry) throws(EngineError) {
        guard let registry else { throw EngineError(.noStore, "no store is open: call store/open first") }
        try registry.register(entry.controller, on: entry.context)
        byName[entry.controller.name] = entry
    }

    /// The controller named `name`; `unknownController` when there is none, or when its
    /// context has been closed since (the controller goes with it), or no store is open.
    func entry(_ name: String, in graph: ObjectGraph?) throws(EngineError) -> Entry {
        guard graph != nil, let entry = byName[name] else {
            throw EngineError(.unknownController, "no controller \(name)", [("controller", .string(name))])
        }
        return entry
    }

    /// Queues one controller's events (a cycle that is not a context's: controller/setRequest).
    func send(_ events: [ControllerEvent], of entry: Entry) {
        outbox.send(events, of: entry, values: CycleValues(entry.context))
    }

    func remove(_ name: String) { registry?.unregister(name) }
}
