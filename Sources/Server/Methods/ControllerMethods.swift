import Contexts
import Controllers
import JSON
import JSONRPC
import Model
import Predicates

extension Server {
    /// `controller/*`: live queries on contexts. `controllers` observes `contexts` and sends
    /// each cycle's notifications (ControllerNotifications).
    func controllerMethods() -> [MethodTable.Entry] {
        let contexts = contexts
        let state = controllers
        typealias D = ControllerDeclarations
        return [
            D.create.handle { p in
                let context = try contexts.context(p.context)
                let entity = try Self.entity(p.request.entity, contexts)
                let compiled = try contexts.requireCompiler().compile(p.request, sectionNameKeyPath: p.sectionNameKeyPath)
                let projection = try Self.projection(p.notify, entity)
                let graph = try contexts.requireGraph()
                let controller = FetchedResultsController(name: p.name, source: context, request: compiled,
                                                          model: graph.store.model)
                try state.add(ControllersState.Entry(controller: controller, context: context, entity: entity,
                                                     projection: projection))
                do { try controller.performFetch() } catch { state.remove(p.name); throw error }
                return Self.summary(controller)
            },
            D.performFetch.handle { p in
                let entry = try state.entry(p.controller, in: contexts.graph)
                try entry.controller.performFetch()
                return Self.summary(entry.controller)
            },
            D.sections.handle { p in
                Single(ControllerWire.sections(try state.entry(p.controller, in: contexts.graph).controller.sections))
            },
            D.rows.handle { p in
                let entry = try state.entry(p.controller, in: contexts.graph)
                let keys = try WireObject.projection(p.keys, entity: entry.entity)
                let ids = try entry.controller.ids(section: p.section, offset: p.offset, limit: p.limit)
                var objects: [JSON] = []
                objects.reserveCapacity(ids.count)
                for id in ids { objects.append(try Self.object(id, in: entry.context, entry.entity, keys: keys)) }
                return Single(.array(objects))
            },
            D.object.handle { p in
                let entry = try state.entry(p.controller, in: contexts.graph)
                let id = try entry.controller.object(at: p.indexPath)
                return Single(try Self.object(id, in: entry.context, entry.entity))
            },
            D.indexPath.handle { p in
                let entry = try state.entry(p.controller, in: contexts.graph)
                let id = try Self.id(p.id, "id")
                return Single(entry.controller.indexPath(of: id).map(ControllerWire.indexPath) ?? .null)
            },
            D.sectionIndexTitles.handle { p in
                let entry = try state.entry(p.controller, in: contexts.graph)
                return Single(.array(entry.controller.sectionIndexTitles.map { .string($0) }))
            },
            D.sectionForIndexTitle.handle { p in
                let entry = try state.entry(p.controller, in: contexts.graph)
                return Single(.integer(Int64(try entry.controller.section(forIndexTitle: p.title, at: p.index))))
            },
            D.close.handle { p in
                _ = try state.entry(p.controller, in: contexts.graph)
                state.remove(p.controller)
                return EmptyResult()
            },
        ]
    }

    static func summary(_ controller: FetchedResultsController) -> ControllerSummary {
        ControllerSummary(sections: ControllerWire.sections(controller.sections), count: controller.count)
    }

    /// `notify`'s keys checked against the entity (`unknownKey`).
    static func projection(_ notify: CreateControllerParams.Notify, _ entity: Entity) throws -> ControllersState.Projection {
        switch notify {
        case .allValues: return .allValues
        case .idsOnly: return .idsOnly
        case .keys(let keys): return .keys(try WireObject.projection(keys, entity: entity) ?? [])
        }
    }
}
