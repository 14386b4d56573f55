import Contexts
import JSON
import Model
import Predicates
import Store

/// The open store, its contexts and the request compiler, used by the `store/*` and
/// `context/*` methods and the controllers (`Server.contexts`). It ends the contexts' cycles
/// when the server ends one, and tells its observers of every store opened (change sets go
/// from the graph to its own observers).
public final class ContextsState: ServerObserver {
    public private(set) var graph: ObjectGraph?
    public private(set) var compiler: RequestCompiler?
    private var observers: [StoreOpenObserver] = []

    public init() {}

    /// Registers for every store opened, after those registered before: the order in which
    /// they join each new graph's observer list.
    public func addObserver(_ observer: StoreOpenObserver) {
        observers.append(observer)
    }

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
    func open(_ location: OpenStoreParams.Location, model: ObjectModel, log: @escaping (String) -> Void)
        throws(EngineError) -> any Store
    {
        let store: any Store
        switch location {
        case .file(let path):
            // SQLite shares one descriptor per file within a process: a new connection to a
            // file open read-only would stay read-only, however writable the file is now.
            if let open = graph?.store as? SQLiteStore, open.isReadOnly, open.isSameFile(as: path) {
                graph?.close()
                graph = nil
            }
            store = try SQLiteStore.open(path: path, model: model) { db in
                try SQLFunctions.register(on: db)
                // The server checkpoints once each answer is out (`Server.afterOutput`).
                db.deferCheckpoints()
            }
        case .server(let url, let schema):
            store = try PGStore.open(url: url, model: model, schema: schema, log: log)
        }
        graph?.close()
        let graph = ObjectGraph(store: store)
        graph.defersRelease = true // freed by `Server.afterOutput`, once the answer is out
        self.graph = graph
        compiler = RequestCompiler(model: model)
        for observer in observers { observer.storeDidOpen(graph) }
        return store
    }

    /// The server's end of a request or batch: every dirty context ends its change cycle.
    public func serverWillEndCycle(_ server: Server) {
        graph?.processPendingChanges()
    }

    public func serverWillClose(_ server: Server) {
        warnAboutUnsavedChanges(server.logger)
        graph?.close()
        graph = nil
        compiler = nil
    }
}
