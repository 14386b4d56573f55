import Contexts
import Model

/// What a controller needs from its context: the context's view of objects (for key paths
/// and current values) and the whole match set of a query, keys only.
public protocol ControllerSource: ObjectView {
    /// Every object matching `filter` with its key under `ordering`, ordered by
    /// `ordering.compare` and then by id number (one SQL query over the context's view).
    /// A nil filter matches every object of `ordering.entity`.
    func fetchKeys(filter: (any ObjectFilter)?, ordering: any ObjectOrdering) throws(EngineError) -> [(
        ObjectID, SortKey
    )]
    /// `fetchKeys` streamed: `body` gets each id number and key in the same order. The key
    /// may be a buffer rewritten between calls, so `body` copies what it keeps.
    func forEachKey(
        filter: (any ObjectFilter)?, ordering: any ObjectOrdering,
        _ body: (Int64, SortKey) -> Void) throws(EngineError)
    /// `forEachKey` in any order (cheaper when the caller sorts the few rows it keeps).
    func forEachKeyInAnyOrder(
        filter: (any ObjectFilter)?, ordering: any ObjectOrdering,
        _ body: (Int64, SortKey) -> Void) throws(EngineError)
    /// How many objects of `entity` a keyed fetch evaluates in memory on top of the store's
    /// rows (unsaved changes): a cost a rebuild pays per object (`CycleCost`).
    func pendingObjectCount(of entity: String) -> Int
}

extension ControllerSource {
    public func pendingObjectCount(of entity: String) -> Int { 0 }

    public func forEachKey(
        filter: (any ObjectFilter)?, ordering: any ObjectOrdering,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        for (id, key) in try fetchKeys(filter: filter, ordering: ordering) { body(id.number, key) }
    }

    public func forEachKeyInAnyOrder(
        filter: (any ObjectFilter)?, ordering: any ObjectOrdering,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        try forEachKey(filter: filter, ordering: ordering, body)
    }
}

/// A context is a controller's source as it is: its view of objects and its keyed fetch.
extension Context: ControllerSource {}
