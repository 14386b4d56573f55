import Model

/// What an object graph tells the observers on its list (`ObjectGraph.addObserver`): each
/// call is made synchronously, as the thing happens, to every observer in registration order
/// (`ObserverList` says what adding or removing during a call does).
public protocol GraphObserver: AnyObject {
    /// One change cycle of one context (`changeSet.context`), in the order cycles happen:
    /// contexts in creation order, a context before its children.
    func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet)
    /// A merge of other processes' commits that merged anything (or found a gap), once every
    /// change set it caused went out.
    func graph(_ graph: ObjectGraph, didMergeExternally merge: ObjectGraph.ExternalMerge)
    /// `closeContext` or `close` closed `context` (its descendants are announced first).
    func graph(_ graph: ObjectGraph, didClose context: Context)
    /// Whether this observer needs a predicate batch on `entity` noted row by row (its
    /// change set, with every row's values before and after). False lets the batch run as
    /// SQL alone, with no change set for anyone (ObjectGraph+BatchInSQL.swift); the default
    /// says yes, so an observer that does not answer keeps every change set.
    func graph(_ graph: ObjectGraph, needsBatchValuesOf entity: String) -> Bool
}

extension GraphObserver {
    public func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) {}
    public func graph(_ graph: ObjectGraph, didMergeExternally merge: ObjectGraph.ExternalMerge) {}
    public func graph(_ graph: ObjectGraph, didClose context: Context) {}
    public func graph(_ graph: ObjectGraph, needsBatchValuesOf entity: String) -> Bool { true }
}

/// An observer that hands each change set to a closure: for a caller that wants change sets
/// only (tests, benchmarks). `ObjectGraph.observeChangeSets` adds one.
public final class ChangeSetHandler: GraphObserver {
    private let body: (ChangeSet) -> Void

    public init(_ body: @escaping (ChangeSet) -> Void) { self.body = body }

    public func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) { body(changeSet) }
}

extension ObjectGraph {
    /// Appends `observer` to the graph's list, after those registered before (a second add
    /// of the same observer changes nothing). The graph holds it until `removeObserver` or
    /// `close`.
    public func addObserver(_ observer: any GraphObserver) {
        observers.add(observer)
    }

    /// Takes `observer` off the list; during a delivery it hears nothing more of it.
    public func removeObserver(_ observer: any GraphObserver) {
        observers.remove(observer)
    }

    /// Adds a `ChangeSetHandler` running `body` for each change set; returns it, for
    /// `removeObserver`.
    @discardableResult
    public func observeChangeSets(_ body: @escaping (ChangeSet) -> Void) -> ChangeSetHandler {
        let handler = ChangeSetHandler(body)
        addObserver(handler)
        return handler
    }
}
