import Contexts
import JSON
import Model

extension Server {
    /// `context/hasChanges`, `changes`, `changedValues`, `committedValues`, `refresh`, `reset`.
    func introspectionMethods() -> [MethodTable.Entry] {
        let scope = paramScope
        typealias D = IntrospectionDeclarations
        return [
            D.hasChanges.handle(in: scope) { p in Single(.bool(p.context.hasChanges)) },
            D.changes.handle(in: scope) { p in ChangesResult(changes: p.context.changedObjects) },
            D.changedValues.handle(in: scope) { p in
                let values = try p.context.changedValues(p.id)
                return Single(WireObject.values(values, entity: try scope.entity(p.id.entity)))
            },
            D.committedValues.handle(in: scope) { p in
                // An object this context inserted has no committed values: `{}`, as in Core Data.
                guard let values = try p.context.committedValues(p.id) else {
                    _ = try Self.object(p.id, in: p.context, p.entity)
                    return Single(.object(JSONObject()))
                }
                return Single(WireObject.values(values, entity: p.entity, keys: p.keys))
            },
            D.refresh.handle(in: scope) { p in
                try p.context.refresh(p.id, mergeChanges: p.mergeChanges)
                return EmptyResult()
            },
            D.reset.handle(in: scope) { p in
                try p.context.reset()
                return EmptyResult()
            },
        ]
    }
}
