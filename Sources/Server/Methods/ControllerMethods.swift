import Contexts
import Controllers
import JSON
import JSONRPC
import Model
import Predicates

extension Server {
    public var controllersState: ControllersState { shared(ControllersState.self) { ControllersState() } }

    /// `controller/*`: live queries on contexts. Every change set a context delivers is
    /// applied to the controllers on that context, in creation order, and their
    /// notifications are queued before the response of the request that caused the cycle.
    func registerControllerMethods() {
        let contexts = contextsState
        let state = controllersState

        contexts.changeSetObservers.append { [unowned self] changeSet in
            state.prune(contexts.graph)
            for entry in state.entries where entry.context.name == changeSet.context {
                for event in entry.controller.apply(changeSet) { notifyControllerEvent(event, entry) }
            }
        }
        // A new store replaces every context, and so every controller.
        contexts.storeObservers.append { _ in state.removeAll() }

        methods.register("controller/create") { p in
            let context = try contexts.context(try p.string("context"))
            let name = try p.string("name")
            guard !name.isEmpty else { throw p.mismatch("name", "a non-empty name", got: "\"\"") }
            let request: FetchRequest = try p.decode("request")
            let entity = try Self.entity(request.entity, contexts)
            let compiled = try contexts.requireCompiler().compile(request, sectionNameKeyPath: try p.optionalString("sectionNameKeyPath"))
            let projection = try Self.projection(p, entity)
            let graph = try contexts.requireGraph()
            let controller = FetchedResultsController(name: name, source: context, request: compiled, model: graph.store.model)
            try state.add(ControllersState.Entry(controller: controller, context: context, entity: entity, projection: projection))
            do { try controller.performFetch() } catch { state.remove(name); throw error }
            return Self.summary(controller)
        }

        methods.register("controller/performFetch") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            try entry.controller.performFetch()
            return Self.summary(entry.controller)
        }

        methods.register("controller/sections") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            return JSON.object(["sections": ControllerWire.sections(entry.controller.sections)])
        }

        methods.register("controller/rows") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            let keys = try WireObject.projection(try p.optionalStringArray("keys"), entity: entry.entity)
            let ids = try entry.controller.ids(section: try p.int("section"), offset: try p.optionalInt("offset") ?? 0,
                                               limit: try p.optionalInt("limit"))
            var objects: [JSON] = []
            objects.reserveCapacity(ids.count)
            for id in ids { objects.append(try Self.object(id, in: entry.context, entry.entity, keys: keys)) }
            return JSON.object(["objects": .array(objects)])
        }

        methods.register("controller/object") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            let path = try p.array("indexPath", of: Int.self)
            guard path.count == 2 else { throw p.mismatch("indexPath", "[section, row]", got: "\(path.count) numbers") }
            let id = try entry.controller.object(at: IndexPath(section: path[0], row: path[1]))
            return JSON.object(["object": try Self.object(id, in: entry.context, entry.entity)])
        }

        methods.register("controller/indexPath") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            let id = try Self.id(p, "id")
            return JSON.object(["indexPath": entry.controller.indexPath(of: id).map(ControllerWire.indexPath) ?? .null])
        }

        methods.register("controller/sectionIndexTitles") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            return JSON.object(["titles": .array(entry.controller.sectionIndexTitles.map { .string($0) })])
        }

        methods.register("controller/sectionForIndexTitle") { p in
            let entry = try state.entry(try p.string("controller"), in: contexts.graph)
            let section = try entry.controller.section(forIndexTitle: try p.string("title"), at: try p.int("index"))
            return JSON.object(["section": .integer(Int64(section))])
        }

        methods.register("controller/close") { p in
            let name = try p.string("controller")
            _ = try state.entry(name, in: contexts.graph)
            state.remove(name)
            return EmptyResult()
        }
    }

    static func summary(_ controller: FetchedResultsController) -> JSON {
        .object(["sections": ControllerWire.sections(controller.sections), "count": .integer(Int64(controller.count))])
    }

    /// `notify`: omitted for every value, `{keys: [...]}` for those keys, `{objects: false}` for ids only.
    static func projection(_ p: ParamReader, _ entity: Entity) throws -> ControllersState.Projection {
        guard let n = try p.optionalObject("notify") else { return .allValues }
        for key in n.object.keys where key != "keys" && key != "objects" {
            throw n.mismatch(key, "one of keys, objects", got: "unknown key")
        }
        if let objects = try n.optionalBool("objects"), !objects {
            if n.has("keys") { throw n.mismatch("keys", "no keys with objects: false", got: "keys") }
            return .idsOnly
        }
        if let keys = try WireObject.projection(try n.optionalStringArray("keys"), entity: entity) { return .keys(keys) }
        return .allValues
    }

    /// Queues one event as its notification (protocol.md §10).
    func notifyControllerEvent(_ event: ControllerEvent, _ entry: ControllersState.Entry) {
        let name = JSON.string(entry.controller.name)
        switch event {
        case .willChangeContent:
            notify("controller/willChangeContent", .object(["controller": name]))
        case .didChangeContent:
            notify("controller/didChangeContent", .object(["controller": name]))
        case let .section(type, index, info):
            notify("controller/didChangeSection", .object([
                "controller": name, "type": .string(type.rawValue), "sectionIndex": .integer(Int64(index)),
                "section": ControllerWire.section(info),
            ]))
        case let .object(type, id, old, new):
            var params: JSONObject = ["controller": name, "type": .string(type.rawValue), "id": .string(id.description)]
            if let old { params["indexPath"] = ControllerWire.indexPath(old) }
            if let new { params["newIndexPath"] = ControllerWire.indexPath(new) }
            if type != .delete, let values = entry.context.snapshot(of: id) {
                switch entry.projection {
                case .allValues: params["object"] = WireObject.json(id, values, entity: entry.entity)
                case .keys(let keys): params["object"] = WireObject.json(id, values, entity: entry.entity, keys: keys)
                case .idsOnly: break
                }
            }
            notify("controller/didChangeObject", .object(params))
        }
    }
}
