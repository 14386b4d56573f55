import Contexts
import Controllers
import JSONRPC
import Model
import Predicates

/// What params name (a context, an entity, a controller, an id), resolved as they are read.
/// Resolving each name right after reading it keeps every method's order of checks: of a
/// request with several problems, the first in that order is the one reported (an unknown
/// context before a missing `values`, say), the same on every run.
public struct ParamScope {
    let contexts: ContextsState
    let controllers: ControllersState

    public func graph() throws(EngineError) -> ObjectGraph { try contexts.requireGraph() }

    public func compiler() throws(EngineError) -> RequestCompiler { try contexts.requireCompiler() }

    public func context(_ name: String) throws(EngineError) -> Context { try contexts.context(name) }

    public func entity(_ name: String) throws(EngineError) -> Entity {
        guard let e = try graph().store.model.entity(name) else {
            throw EngineError(.unknownEntity, "no entity \(name)", [("entity", .string(name))])
        }
        return e
    }

    public func controller(_ name: String) throws(EngineError) -> ControllersState.Entry {
        try controllers.entry(name, in: contexts.graph)
    }
}
