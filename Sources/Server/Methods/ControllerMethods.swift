import Contexts
import Controllers
import JSON
import JSONRPC
import Model
import Predicates

extension Server {
    /// `controller/*`: live queries on contexts. The engine's registry applies each cycle to
    /// them; `controllers` sends what they report (ControllerNotifications).
    func controllerMethods() -> [MethodTable.Entry] {
        let state = controllers
        let scope = paramScope
        typealias D = ControllerDeclarations
        return [
            D.create.handle(in: scope) { p in
                let controller = FetchedResultsController(
                    name: p.name, source: p.context, request: p.compiled, model: p.model)
                try state.add(
                    ControllersState.Entry(
                        controller: controller, context: p.context, entity: p.entity,
                        projection: p.projection, delivery: p.delivery))
                WorkProgress.current?.phase("fetching")
                do { try controller.performFetch() } catch {
                    state.remove(p.name)
                    throw error
                }
                WorkProgress.current?.phase("\(controller.sections.reduce(0) { $0 + $1.numberOfObjects }) rows fetched")
                return Self.summary(controller)
            },
            D.performFetch.handle(in: scope) { p in
                try p.entry.controller.performFetch()
                return Self.summary(p.entry.controller)
            },
            D.sections.handle(in: scope) { p in Single(ControllerWire.sections(p.entry.controller.sections)) },
            D.rows.handle(in: scope) { p in
                let ids = try p.entry.controller.ids(section: p.section, offset: p.offset, limit: p.limit)
                var objects: [JSON] = []
                objects.reserveCapacity(ids.count)
                for id in ids { objects.append(try Self.object(id, in: p.entry.context, p.entry.entity, keys: p.keys)) }
                return Single(.array(objects))
            },
            D.object.handle(in: scope) { p in
                let id = try p.entry.controller.object(at: p.indexPath)
                return Single(try Self.object(id, in: p.entry.context, p.entry.entity))
            },
            D.indexPath.handle(in: scope) { p in
                Single(p.entry.controller.indexPath(of: p.id).map(ControllerWire.indexPath) ?? .null)
            },
            D.sectionIndexTitles.handle(in: scope) { p in
                Single(.array(p.entry.controller.sectionIndexTitles.map { .string($0) }))
            },
            D.sectionForIndexTitle.handle(in: scope) { p in
                Single(.integer(Int64(try p.entry.controller.section(forIndexTitle: p.title, at: p.index))))
            },
            D.setRequest.handle(in: scope) { p in
                // The context's open cycle ends first, so the old results are what the
                // client holds; then the one cycle from old to new goes out.
                p.entry.context.processPendingChanges()
                state.send(try p.entry.controller.setRequest(p.compiled, model: p.model), of: p.entry)
                return Self.summary(p.entry.controller)
            },
            D.close.handle(in: scope) { p in
                state.remove(p.name)
                return EmptyResult()
            },
        ]
    }

    static func summary(_ controller: FetchedResultsController) -> ControllerSummary {
        ControllerSummary(sections: ControllerWire.sections(controller.sections), count: controller.count)
    }
}
