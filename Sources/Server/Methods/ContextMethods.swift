import Contexts
import JSON
import JSONRPC
import Model
import Predicates

extension Server {
    /// `context/*`. Changes end their cycle at the end of the request (or batch), when the
    /// server tells `contexts` (a ServerObserver) that the cycle ends.
    func contextMethods() -> [MethodTable.Entry] {
        let scope = paramScope
        typealias D = ContextDeclarations
        return [
            D.create.handle(in: scope) { p in
                let context = try p.graph.createContext(
                    p.name, parent: p.parent,
                    mergesChangesFromParent: p.mergesChangesFromParent,
                    mergePolicy: p.mergePolicy)
                context.transactionAuthor = p.transactionAuthor
                if let levels = p.undoLevels { context.enableUndo(levels: levels) }
                return Single(.string(context.name))
            },
            D.insert.handle(in: scope) { p in
                let id = try p.context.insert(p.entity.name, p.values)
                return Single(try Self.object(id, in: p.context, p.entity))
            },
            D.update.handle(in: scope) { p in
                try p.context.update(p.id, p.values)
                return Single(try Self.object(p.id, in: p.context, p.entity))
            },
            D.delete.handle(in: scope) { p in
                try p.context.delete(p.id)
                return EmptyResult()
            },
            D.get.handle(in: scope) { p in
                var objects: [JSON] = []
                for (id, entity) in p.ids { objects.append(try Self.object(id, in: p.context, entity, keys: p.keys)) }
                return Single(.array(objects))
            },
            D.fetch.handle(in: scope) { p in
                if let dictionary = p.dictionary {
                    return Single(Self.rows(try p.context.fetchDictionaries(dictionary), dictionary))
                }
                let ids = try p.context.fetch(
                    entity: p.request.entity, filter: p.compiled.filter, ordering: p.compiled.ordering,
                    limit: p.request.fetchLimit, offset: p.request.fetchOffset)
                if p.resultType == .id { return Single(.array(ids.map { .string($0.description) })) }
                var objects: [JSON] = []
                objects.reserveCapacity(ids.count)
                for id in ids { objects.append(try Self.object(id, in: p.context, p.entity, keys: p.keys)) }
                return Single(.array(objects))
            },
            D.count.handle(in: scope) { p in
                var n = try p.context.count(entity: p.request.entity, filter: p.compiled.filter)
                n = max(0, n - p.request.fetchOffset)
                if let limit = p.request.fetchLimit { n = min(n, limit) }
                return Single(.integer(Int64(n)))
            },
            D.save.handle(in: scope) { p in SaveResult(counts: try p.context.save()) },
            D.rollback.handle(in: scope) { p in
                try p.context.rollback()
                return EmptyResult()
            },
            D.processPendingChanges.handle(in: scope) { p in
                p.context.processPendingChanges()
                return EmptyResult()
            },
            D.close.handle(in: scope) { p in
                try p.graph.closeContext(p.context)
                return EmptyResult()
            },
        ]
    }

    /// Dictionary rows on the wire: group keys, then the fetched properties, in request order.
    static func rows(_ rows: [Snapshot], _ r: DictionaryRequest) -> JSON {
        let keys = r.groupBy + r.properties.map(\.name).filter { !r.groupBy.contains($0) }
        return .array(
            rows.map { row in
                var o = JSONObject()
                for key in keys { if let v = row[key] { o[key] = WireValue.json(v) } }
                return .object(o)
            })
    }

    /// The object as `context` sees it, on the wire; `unknownObject` when it does not exist there.
    static func object(_ id: ObjectID, in context: Context, _ entity: Entity, keys: Set<String>? = nil)
        throws(EngineError) -> JSON
    {
        guard let values = try context.object(id) else {
            throw EngineError(
                .unknownObject, "no object \(id) in context \(context.name)",
                [("id", .string(id.description)), ("context", .string(context.name))])
        }
        return WireObject.json(id, values, entity: entity, keys: keys)
    }
}
