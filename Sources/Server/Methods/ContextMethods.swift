import Contexts
import JSON
import JSONRPC
import Model
import Predicates

extension Server {
    /// `context/*`: create and close contexts, change objects, read them, save and roll back.
    /// Changes end their cycle at the end of the request (or batch), in `StoreMethods`' hook.
    func registerContextMethods() {
        let state = contextsState

        methods.register("context/create") { p in
            var policy = MergePolicy.error
            if let text = try p.optionalString("mergePolicy") {
                guard let parsed = MergePolicy(rawValue: text) else {
                    throw p.mismatch("mergePolicy", MergePolicy.allCases.map(\.rawValue).joined(separator: " | "), got: "\"\(text)\"")
                }
                policy = parsed
            }
            let context = try state.requireGraph().createContext(
                try p.string("name"), parent: try p.optionalString("parent"),
                mergesChangesFromParent: try p.optionalBool("mergesChangesFromParent") ?? true, mergePolicy: policy)
            return JSON.object(["context": .string(context.name)])
        }

        methods.register("context/insert") { p in
            let context = try state.context(try p.string("context"))
            let entity = try Self.entity(try p.string("entity"), state)
            let values = try WireValue.snapshot(try p.required("values", as: JSONObject.self), for: entity)
            let id = try context.insert(entity.name, values)
            return JSON.object(["object": try Self.object(id, in: context, entity)])
        }

        methods.register("context/update") { p in
            let context = try state.context(try p.string("context"))
            let id = try Self.id(p, "id")
            let entity = try Self.entity(id.entity, state)
            let values = try WireValue.snapshot(try p.required("values", as: JSONObject.self), for: entity)
            try context.update(id, values)
            return JSON.object(["object": try Self.object(id, in: context, entity)])
        }

        methods.register("context/delete") { p in
            let context = try state.context(try p.string("context"))
            let id = try Self.id(p, "id")
            _ = try Self.entity(id.entity, state)
            try context.delete(id)
            return EmptyResult()
        }

        methods.register("context/get") { p in
            let context = try state.context(try p.string("context"))
            var ids: [(ObjectID, Entity)] = []
            for (i, text) in try p.stringArray("ids").enumerated() {
                guard let id = ObjectID(text) else { throw p.mismatch("ids[\(i)]", "id \"Entity/N\"", got: "\"\(text)\"") }
                ids.append((id, try Self.entity(id.entity, state)))
            }
            // Ids of several entities: each object shows the projected keys it has; a key
            // none of them has is an error.
            let keys = try p.optionalStringArray("keys")
            if let keys {
                for key in keys where !ids.contains(where: { $0.1.key(key) != nil }) {
                    let entity = ids.first?.1.name ?? ""
                    throw EngineError(.unknownKey, "no key \(key) on \(entity)", [("entity", .string(entity)), ("key", .string(key))])
                }
            }
            var objects: [JSON] = []
            for (id, entity) in ids { objects.append(try Self.object(id, in: context, entity, keys: keys.map(Set.init))) }
            return JSON.object(["objects": .array(objects)])
        }

        methods.register("context/fetch") { p in
            let context = try state.context(try p.string("context"))
            let request: FetchRequest = try p.decode("request")
            let compiled = try state.requireCompiler().compile(request)
            let entity = try Self.entity(request.entity, state)
            let keys = try WireObject.projection(try p.optionalStringArray("keys"), entity: entity)
            let ids = try context.fetch(entity: request.entity, filter: compiled.filter, ordering: compiled.ordering,
                                        limit: request.fetchLimit, offset: request.fetchOffset)
            var objects: [JSON] = []
            objects.reserveCapacity(ids.count)
            for id in ids { objects.append(try Self.object(id, in: context, entity, keys: keys)) }
            return JSON.object(["objects": .array(objects)])
        }

        methods.register("context/count") { p in
            let context = try state.context(try p.string("context"))
            let request: FetchRequest = try p.decode("request")
            let compiled = try state.requireCompiler().compile(request)
            var n = try context.count(entity: request.entity, filter: compiled.filter)
            n = max(0, n - request.fetchOffset)
            if let limit = request.fetchLimit { n = min(n, limit) }
            return JSON.object(["count": .integer(Int64(n))])
        }

        methods.register("context/save") { p in
            let counts = try state.context(try p.string("context")).save()
            return JSON.object(["inserted": .integer(Int64(counts.inserted)), "updated": .integer(Int64(counts.updated)),
                                "deleted": .integer(Int64(counts.deleted))])
        }

        methods.register("context/rollback") { p in
            try state.context(try p.string("context")).rollback()
            return EmptyResult()
        }

        methods.register("context/processPendingChanges") { p in
            try state.context(try p.string("context")).processPendingChanges()
            return EmptyResult()
        }

        methods.register("context/close") { p in
            try state.requireGraph().closeContext(try p.string("context"))
            return EmptyResult()
        }
    }

    static func entity(_ name: String, _ state: ContextsState) throws(EngineError) -> Entity {
        guard let e = try state.requireGraph().store.model.entity(name) else {
            throw EngineError(.unknownEntity, "no entity \(name)", [("entity", .string(name))])
        }
        return e
    }

    static func id(_ p: ParamReader, _ key: String) throws -> ObjectID {
        let text = try p.string(key)
        guard let id = ObjectID(text) else { throw p.mismatch(key, "id \"Entity/N\"", got: "\"\(text)\"") }
        return id
    }

    /// The object as `context` sees it, on the wire; `unknownObject` when it does not exist there.
    static func object(_ id: ObjectID, in context: Context, _ entity: Entity, keys: Set<String>? = nil) throws(EngineError) -> JSON {
        guard let values = try context.object(id) else {
            throw EngineError(.unknownObject, "no object \(id) in context \(context.name)",
                              [("id", .string(id.description)), ("context", .string(context.name))])
        }
        return WireObject.json(id, values, entity: entity, keys: keys)
    }
}
