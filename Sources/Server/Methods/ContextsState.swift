import Contexts
import JSON
import Model
import Predicates
import Store

/// The open store, its contexts and the request compiler, shared by the `store/*` and
/// `context/*` methods and the controllers (through `Server.shared`).
public final class ContextsState {
    public private(set) var graph: ObjectGraph?
    public private(set) var compiler: RequestCompiler?
    /// Every change set, in the order the cycles happen (the controllers listen here).
    public var changeSetObservers: [(ChangeSet) -> Void] = []
    /// After `store/open` replaced the graph (controllers on the old one are gone with it).
    public var storeObservers: [(ObjectGraph) -> Void] = []

    public init() {}

    /// The graph, or `noStore` when no store is open.
    public func requireGraph() throws(EngineError) -> ObjectGraph {
        guard let graph else { throw EngineError(.noStore, "no store is open: call store/open first") }
        return graph
    }

    public func requireCompiler() throws(EngineError) -> RequestCompiler {
        guard let compiler else { throw EngineError(.noStore, "no store is open: call store/open first") }
        return compiler
    }

    public func context(_ name: String) throws(EngineError) -> Context {
        try requireGraph().context(name)
    }

    /// Opens a store; an open one is closed only once the new one opened (a failed open
    /// leaves everything as it was).
    func open(path: String, model: ObjectModel) throws(EngineError) -> Store {
        let store = try Store.open(path: path, model: model, configure: { try SQLFunctions.register(on: $0) })
        graph?.close()
        let graph = ObjectGraph(store: store)
        graph.onChangeSet = { [unowned self] set in for observer in changeSetObservers { observer(set) } }
        self.graph = graph
        compiler = RequestCompiler(model: model)
        for observer in storeObservers { observer(graph) }
        return store
    }

    /// The server's end of a request or batch: every dirty context ends its change cycle.
    func endOfCycle() {
        graph?.processPendingChanges()
    }

    func close() {
        graph?.close()
        graph = nil
        compiler = nil
    }
}

extension Server {
    public var contextsState: ContextsState { shared(ContextsState.self) { ContextsState() } }
}
