import Model
import Store

/// The store and every context on it, by name. `main` exists from the start.
///
/// Change sets, external merges and closed contexts go to the graph's observers
/// (GraphObserver.swift), synchronously, in the order they happen, each to every observer in
/// registration order; the controllers (`ControllerRegistry`) and the server observe it.
public final class ObjectGraph {
    public let store: any Store
    /// In registration order (`addObserver`).
    let observers = ObserverList<any GraphObserver>()
    /// In creation order: the order cycles of several contexts are processed and merged.
    public private(set) var contexts: [Context] = []
    private var byName: [String: Context] = [:]
    /// Store reads shared by the contexts while one mutation runs.
    var heldReads = HeldReads()
    /// Batch inserts arriving in parts, by entity (ObjectGraph+HeldInsert.swift).
    var heldInserts: [String: HeldInsert] = [:]
    /// Set by a server that frees after it answers: a batch insert's rows are then kept here
    /// when it ends, and freed by `releaseDeferred`. Freeing a million rows takes a fifth
    /// of a second, which the client otherwise waits for.
    public var defersRelease = false
    private var deferred: [Any] = []
    /// How many things wait for `releaseDeferred`.
    public var deferredCount: Int { deferred.count }

    public static let mainContext = "main"

    public init(store: any Store) {
        self.store = store
        let main = Context(
            name: Self.mainContext, parent: nil, mergesChangesFromParent: true, mergePolicy: .error, graph: self)
        contexts.append(main)
        byName[main.name] = main
    }

    /// Frees what `defersRelease` kept.
    public func releaseDeferred() { deferred.removeAll() }

    /// Keeps `value` alive until `releaseDeferred` when the graph defers its release.
    func releaseLater(_ value: Any) { if defersRelease { deferred.append(value) } }

    public func context(_ name: String) throws(EngineError) -> Context {
        guard let c = byName[name] else {
            throw EngineError(.unknownContext, "no context \(name)", [("context", .string(name))])
        }
        return c
    }

    @discardableResult
    public func createContext(
        _ name: String, parent: String? = nil, mergesChangesFromParent: Bool = true,
        mergePolicy: MergePolicy = .error
    ) throws(EngineError) -> Context {
        guard !name.isEmpty else {
            throw EngineError(.invalidValue, "a context needs a name", [("key", .string("name"))])
        }
        guard byName[name] == nil else {
            throw EngineError(.duplicateName, "a context named \(name) exists", [("context", .string(name))])
        }
        let p = try parent.map { name throws(EngineError) in try context(name) }
        let c = Context(
            name: name, parent: p, mergesChangesFromParent: mergesChangesFromParent,
            mergePolicy: mergePolicy, graph: self)
        p?.children.append(c)
        contexts.append(c)
        byName[name] = c
        return c
    }

    /// Closes a context and its descendants, discarding their unsaved changes silently.
    public func closeContext(_ name: String) throws(EngineError) {
        let c = try context(name)
        for child in c.children { try closeContext(child.name) }
        c.parent?.children.removeAll { $0 === c }
        contexts.removeAll { $0 === c }
        byName[name] = nil
        observers.notify { $0.graph(self, didClose: c) }
    }

    public var roots: [Context] { contexts.filter(\.isRoot) }

    /// Ends the change cycle of every context that saw a change, in creation order (the
    /// server's end of every request or batch).
    public func processPendingChanges() {
        for c in contexts where c.isDirty { c.processPendingChanges() }
    }

    /// Closes every context (announced as `closeContext` does, children first), then the
    /// store, and lets go of the observers; the graph is unusable afterwards.
    public func close() {
        // Children come after their parents in creation order.
        for c in contexts.reversed() { observers.notify { $0.graph(self, didClose: c) } }
        contexts.removeAll()
        byName.removeAll()
        observers.removeAll()
        store.close()
    }

    func deliver(_ changes: ChangeSet) {
        observers.notify { $0.graph(self, didChange: changes) }
    }

    /// `merge`, to every observer, once its change sets went out.
    func announce(_ merge: ExternalMerge) {
        observers.notify { $0.graph(self, didMergeExternally: merge) }
    }
}
