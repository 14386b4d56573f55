import Model
import Predicates
import Store

extension Context {
    /// Every object of `entity` this context sees that matches `filter`, ordered by
    /// `ordering` then id number, with its sort key (empty without an ordering).
    ///
    /// SQL reads the store; the objects whose values here may differ from the store's
    /// (changed anywhere in the chain of contexts, or reached through a changed object by a
    /// key path of the filter or ordering) are left out of the SQL rows and evaluated in
    /// memory instead, then both sorted lists are merged.
    public func fetchKeys(entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?)
        throws(EngineError) -> [(ObjectID, SortKey)]
    {
        try fetchKeys(entity: entity, filter: filter, ordering: ordering, limit: nil, offset: 0)
    }

    /// The controllers' form (`ControllerSource`): the whole match set, keyed.
    public func fetchKeys(filter: (any ObjectFilter)?, ordering: any ObjectOrdering) throws(EngineError) -> [(
        ObjectID, SortKey
    )] {
        try fetchKeys(entity: ordering.entity, filter: filter, ordering: ordering, limit: nil, offset: 0)
    }

    public func fetch(
        entity: String, filter: (any ObjectFilter)? = nil, ordering: (any ObjectOrdering)? = nil,
        limit: Int? = nil, offset: Int = 0
    ) throws(EngineError) -> [ObjectID] {
        try fetchKeys(entity: entity, filter: filter, ordering: ordering, limit: limit, offset: offset).map(\.0)
    }

    public func count(entity: String, filter: (any ObjectFilter)? = nil) throws(EngineError) -> Int {
        let table = try checkedEntity(entity, filter: filter, ordering: nil)
        let overlay = try overlayIDs(entity: table.name, paths: filter?.relationshipPaths ?? [])
        // The saved rows minus the overlay, whose objects are evaluated here.
        var n = try store.count(entity: table.name, filter: filter, skipping: Set(overlay.map(\.number)))
        for id in overlay {
            if let values = try object(id), filter?.matches(id, values, in: self) ?? true { n += 1 }
        }
        return n
    }

    /// The controllers' bulk form: `body` gets each matching object's id number and key in
    /// order, as `fetchKeys` returns them, without an array of the whole match set. The key
    /// is one buffer rewritten between calls (`body` copies what it keeps).
    public func forEachKey(
        filter: (any ObjectFilter)?, ordering: any ObjectOrdering,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        try streamKeys(entity: ordering.entity, filter: filter, ordering: ordering, limit: nil, offset: 0, body)
    }

    private func fetchKeys(
        entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?,
        limit: Int?, offset: Int
    ) throws(EngineError) -> [(ObjectID, SortKey)] {
        var rows: [(ObjectID, SortKey)] = []
        try streamKeys(entity: entity, filter: filter, ordering: ordering, limit: limit, offset: offset) {
            number, key in
            rows.append((ObjectID(entity: entity, number: number), key))
        }
        return rows
    }

    /// The one keyed fetch: the store's rows (minus the overlay) merged on the fly with the
    /// overlay's objects evaluated in memory, both in the ordering's order then by id number;
    /// rows `[offset, offset + limit)` of the merge go to `body`.
    private func streamKeys(
        entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?,
        limit: Int?, offset: Int, _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        let (table, overlay) = try overlay(entity, filter: filter, ordering: ordering)
        // Nothing to merge in memory: the store cuts the window.
        if overlay.isEmpty {
            try store.forEachKey(
                entity: table.name, filter: filter, ordering: ordering, limit: limit, offset: offset,
                skipping: [], ordered: true, body)
            return
        }
        var fromMemory: [(Int64, SortKey)] = []
        try evaluate(overlay, of: table.name, filter: filter, ordering: ordering) { fromMemory.append(($0, $1)) }
        let first = max(0, offset)
        let end = limit.map { first + max(0, $0) } ?? Int.max
        var merge = KeyMerge(memory: fromMemory, ordering: ordering, first: first, end: end)
        try store.forEachKey(
            entity: table.name, filter: filter, ordering: ordering, limit: nil, offset: 0, skipping: overlay,
            ordered: true
        ) {
            merge.row($0, $1, body)
        }
        merge.finish(body)
    }

    /// Every matching object's id number and key, in no particular order: the store's rows
    /// unsorted (no ORDER BY), then the overlay's objects evaluated here. For callers that
    /// sort what they keep (a controller moving the few rows two requests disagree on).
    public func forEachKeyInAnyOrder(
        filter: (any ObjectFilter)?, ordering: any ObjectOrdering, _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        let (table, overlay) = try overlay(ordering.entity, filter: filter, ordering: ordering)
        try store.forEachKey(
            entity: table.name, filter: filter, ordering: ordering, limit: nil, offset: 0, skipping: overlay,
            ordered: false, body)
        try evaluate(overlay, of: table.name, filter: filter, ordering: ordering, body)
    }

    /// The entity, and the id numbers of its objects whose answer here may differ from the
    /// store's (every overlay id is of this entity, so numbers identify them).
    private func overlay(_ entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?)
        throws(EngineError) -> (Entity, Set<Int64>)
    {
        let table = try checkedEntity(entity, filter: filter, ordering: ordering)
        let paths = (filter?.relationshipPaths ?? []) + (ordering?.relationshipPaths ?? [])
        return (table, Set(try overlayIDs(entity: table.name, paths: paths).map(\.number)))
    }

    /// The overlay's matching objects evaluated here, with their keys (empty without an ordering).
    private func evaluate(
        _ overlay: Set<Int64>, of entity: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?,
        _ body: (Int64, SortKey) -> Void
    ) throws(EngineError) {
        for number in overlay {
            let id = ObjectID(entity: entity, number: number)
            guard let values = try object(id), filter?.matches(id, values, in: self) ?? true else { continue }
            body(number, ordering?.key(of: id, values, in: self) ?? [])
        }
    }

    private func checkedEntity(_ name: String, filter: (any ObjectFilter)?, ordering: (any ObjectOrdering)?)
        throws(EngineError) -> Entity
    {
        guard let e = model.entity(name) else {
            throw EngineError(.unknownEntity, "no entity \(name)", [("entity", .string(name))])
        }
        for other in [filter?.entity, ordering?.entity].compactMap({ $0 }) where other != name {
            throw EngineError(
                .invalidValue, "the request is on \(name) but was compiled for \(other)", [("entity", .string(other))])
        }
        return e
    }

    /// The objects of `entity` whose SQL row may not show what this context sees: changed in
    /// this context or an ancestor, or pointing (along one of `paths`) at such an object,
    /// in the store or here.
    func overlayIDs(entity: String, paths: [[String]]) throws(EngineError) -> Set<ObjectID> {
        var changed: [String: Set<ObjectID>] = [:]
        var c: Context? = self
        while let context = c {
            for id in context.pending.keys { changed[id.entity, default: []].insert(id) }
            c = context.parent
        }
        var overlay = changed[entity] ?? []
        for path in paths where !path.isEmpty {
            // The entities along the path, and the relationships leading back.
            var hops: [(entity: String, relationship: Relationship)] = []
            var current = entity
            for name in path {
                guard let r = model.entity(current)?.relationship(name) else { break }
                hops.append((current, r))
                current = r.destination
            }
            for depth in stride(from: hops.count, through: 1, by: -1) {
                let destination = hops[depth - 1].relationship.destination
                var frontier = changed[destination] ?? []
                for hop in hops[0..<depth].reversed() {
                    var next: Set<ObjectID> = []
                    for id in frontier {
                        // Both the stored and the current values: the object may have been
                        // reached before the change or after it.
                        for values in [try store.read(id)?.values, try object(id)].compactMap({ $0 }) {
                            for referrer in (values[hop.relationship.inverse] ?? .null).objectIDs
                            where referrer.entity == hop.entity {
                                next.insert(referrer)
                            }
                        }
                    }
                    frontier = next
                    if frontier.isEmpty { break }
                }
                overlay.formUnion(frontier.filter { $0.entity == entity })
            }
        }
        return overlay
    }
}
