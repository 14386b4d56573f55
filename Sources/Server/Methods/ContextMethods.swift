import Contexts
import JSON
import JSONRPC
import Model
import Predicates

extension Server {
    /// `context/*`. Changes end their cycle at the end of the request (or batch), when the
    /// server tells `contexts` (a ServerObserver) that the cycle ends.
    func contextMethods() -> [MethodTable.Entry] {
        let state = contexts
        typealias D = ContextDeclarations
        return [
            D.create.handle { p in
                let context = try state.requireGraph().createContext(
                    p.name, parent: p.parent, mergesChangesFromParent: p.mergesChangesFromParent, mergePolicy: p.mergePolicy)
                return Single(.string(context.name))
            },
            D.insert.handle { p in
                let context = try state.context(p.context)
                let entity = try Self.entity(p.entity, state)
                let id = try context.insert(entity.name, try WireValue.snapshot(p.values, for: entity))
                return Single(try Self.object(id, in: context, entity))
            },
            D.update.handle { p in
                let context = try state.context(p.context)
                let id = try Self.id(p.id, "id")
                let entity = try Self.entity(id.entity, state)
                try context.update(id, try WireValue.snapshot(p.values, for: entity))
                return Single(try Self.object(id, in: context, entity))
            },
            D.delete.handle { p in
                let context = try state.context(p.context)
                let id = try Self.id(p.id, "id")
                _ = try Self.entity(id.entity, state)
                try context.delete(id)
                return EmptyResult()
            },
            D.get.handle { p in
                let context = try state.context(p.context)
                var ids: [(ObjectID, Entity)] = []
                for (i, text) in p.ids.enumerated() {
                    let id = try Self.id(text, "ids[\(i)]")
                    ids.append((id, try Self.entity(id.entity, state)))
                }
                // Ids of several entities: each object shows the projected keys it has; a key
                // none of them has is an error.
                if let keys = p.keys {
                    for key in keys where !ids.contains(where: { $0.1.key(key) != nil }) {
                        let entity = ids.first?.1.name ?? ""
                        throw EngineError(.unknownKey, "no key \(key) on \(entity)",
                                          [("entity", .string(entity)), ("key", .string(key))])
                    }
                }
                var objects: [JSON] = []
                for (id, entity) in ids { objects.append(try Self.object(id, in: context, entity, keys: p.keys.map(Set.init))) }
                return Single(.array(objects))
            },
            D.fetch.handle { p in
                let context = try state.context(p.context)
                let request = p.request
                let compiled = try state.requireCompiler().compile(request)
                let entity = try Self.entity(request.entity, state)
                let keys = try WireObject.projection(p.keys, entity: entity)
                let ids = try context.fetch(entity: request.entity, filter: compiled.filter, ordering: compiled.ordering,
                                            limit: request.fetchLimit, offset: request.fetchOffset)
                var objects: [JSON] = []
                objects.reserveCapacity(ids.count)
                for id in ids { objects.append(try Self.object(id, in: context, entity, keys: keys)) }
                return Single(.array(objects))
            },
            D.count.handle { p in
                let context = try state.context(p.context)
                let compiled = try state.requireCompiler().compile(p.request)
                var n = try context.count(entity: p.request.entity, filter: compiled.filter)
                n = max(0, n - p.request.fetchOffset)
                if let limit = p.request.fetchLimit { n = min(n, limit) }
                return Single(.integer(Int64(n)))
            },
            D.save.handle { p in SaveResult(counts: try state.context(p.context).save()) },
            D.rollback.handle { p in
                try state.context(p.context).rollback()
                return EmptyResult()
            },
            D.processPendingChanges.handle { p in
                try state.context(p.context).processPendingChanges()
                return EmptyResult()
            },
            D.close.handle { p in
                try state.requireGraph().closeContext(p.context)
                return EmptyResult()
            },
        ]
    }

    static func entity(_ name: String, _ state: ContextsState) throws(EngineError) -> Entity {
        guard let e = try state.requireGraph().store.model.entity(name) else {
            throw EngineError(.unknownEntity, "no entity \(name)", [("entity", .string(name))])
        }
        return e
    }

    /// An id param's text as an ObjectID; -32602 naming `param` when it is not `Entity/N`.
    static func id(_ text: String, _ param: String) throws(RPCError) -> ObjectID {
        guard let id = ObjectID(text) else {
            throw RPCError.invalidParams(param: param, expected: "id \"Entity/N\"", got: "\"\(text)\"")
        }
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
