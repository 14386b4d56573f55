import Model
import Predicates

extension FetchedResultsController {
    /// Replaces the controller's request (predicate, sort descriptors, section key path,
    /// fetchLimit/fetchOffset; the entity stays) and returns ONE change cycle from the old
    /// results to the new ones (protocol.md §9, "Changing the request"). Objects' values do
    /// not change, so no row is an update: rows only in the old results are deletes, rows
    /// only in the new ones inserts, and of the rows in both, the most that keep their order
    /// within a section that survives stay put (§10.4's fewest moves, ties to the first in
    /// new order); the others move. Sections are matched by name; surviving sections that
    /// would change their order are deleted and inserted (there are no section moves).
    ///
    /// Cost: a new predicate alone queries the two differences and moves the k rows that
    /// differ (O(k log n)); a refinement (RequestNarrowing) filters the held rows in memory,
    /// with no query; a new order, sections or window fetches the new request and compares
    /// the visible rows by id (O(n)). On an error (`invalidValue` for another entity, or a
    /// failed query) nothing changes.
    ///
    /// A controller that `needsRefetch` holds rows that may be behind its context: it always
    /// fetches the new request and compares by id, and reports the rows that stay as updates
    /// (as a refetch does: their values may have changed).
    public func setRequest(_ new: CompiledRequest, model: ObjectModel) throws(EngineError) -> [ControllerEvent] {
        let keepsOrder =
            request.map {
                $0.request.sortDescriptors == new.request.sortDescriptors
                    && $0.sectionNameKeyPath == new.sectionNameKeyPath
            } ?? false
        let residual =
            keepsOrder
            ? request.flatMap { RequestNarrowing.residual(new.request, from: $0.request, model: model) } : nil
        let events = try setRequest(
            filter: new.filter, ordering: new.ordering, sectionNameKeyPath: new.sectionNameKeyPath,
            fetchLimit: new.request.fetchLimit, fetchOffset: new.request.fetchOffset, keepsOrder: keepsOrder,
            narrows: residual != nil, residual: residual, model: model)
        request = new
        return events
    }

    /// `setRequest` by parts. `keepsOrder` promises that `ordering` sorts (and sections)
    /// exactly as the current ordering does, which lets the predicate-only path run;
    /// `narrows` (with `keepsOrder`) promises that `newFilter` matches no object the current
    /// filter does not, so the held rows are filtered in memory and no query runs; they are
    /// tested with `residual` when given (what `newFilter` adds to the current filter, see
    /// RequestNarrowing.residual), else with `newFilter`.
    public func setRequest(
        filter newFilter: any ObjectFilter, ordering newOrdering: any ObjectOrdering, sectionNameKeyPath: String?,
        fetchLimit: Int?, fetchOffset: Int, keepsOrder: Bool, narrows: Bool = false,
        residual: (any ObjectFilter)? = nil, model: ObjectModel
    ) throws(EngineError) -> [ControllerEvent] {
        guard newFilter.entity == entity, newOrdering.entity == entity else {
            throw EngineError(
                .invalidValue, "controller \(name) is on \(entity); its entity cannot change to \(newFilter.entity)",
                [("key", "entity"), ("entity", .string(newFilter.entity)), ("controller", .string(name))])
        }
        let stale = needsRefetch
        // Held rows behind the context can be neither filtered nor diffed by query.
        let keepsOrder = keepsOrder && !stale
        let sameWindow = self.fetchLimit == fetchLimit && self.fetchOffset == fetchOffset
        if keepsOrder && sameWindow && !narrows {
            // Only the predicate changes: query the two differences, not the whole new request.
            let events = try differenceByDelta(from: filter, to: newFilter)
            adopt(newFilter, newOrdering, sectionNameKeyPath, fetchLimit, fetchOffset, model)
            return events
        }
        let shape = Results(
            ordering: newOrdering, keyWidth: newOrdering.keyColumns(alias: "t").count,
            sectioned: sectionNameKeyPath != nil, offset: fetchOffset, limit: fetchLimit)
        let started = CycleCost.now()
        var loader = Results.Loader(shape)
        // A narrowing only removes rows: their ranks, in order.
        var dropped: [(rank: Int, number: Int64)] = []
        if keepsOrder && narrows {
            // The held rows are every match of the old filter, in order, with their current
            // keys (cycles keep them so): the new matches are among them, same keys.
            narrowedRequests += 1
            let test = residual ?? newFilter
            let keyed = keyColumns(for: test)
            // One comparison of one attribute the key holds: the value goes straight to it.
            let direct = test.attributeTest.flatMap { t in
                keyed?.first { $0.0 == t.attribute }.map { (column: $0.1, test: t.test) }
            }
            var values: Snapshot = [:]
            var rank = 0
            // One key buffer for the walk (the loader copies the keys it keeps).
            var key = SortKey(repeating: .null, count: results.rows.width)
            results.rows.forEachLeaf { entries, _ in
                for i in 0..<entries.count {
                    entries.load(i, into: &key)
                    let number = entries.ids[i]
                    let keep: Bool
                    if let (column, compare) = direct {
                        keep = compare(key[column])
                    } else if let keyed {
                        // The predicate reads only attributes the key holds: no object is read.
                        for (name, column) in keyed { values[name] = key[column] }
                        keep = test.matches(ObjectID(entity: entity, number: number), values, in: source)
                    } else if let current = source.snapshot(of: ObjectID(entity: entity, number: number)) {
                        keep = test.matches(ObjectID(entity: entity, number: number), current, in: source)
                    } else {
                        keep = false
                    }
                    if keep { loader.append(key, number) } else { dropped.append((rank, number)) }
                    rank += 1
                }
            }
        } else {
            var rows = 0
            try source.forEachKey(filter: newFilter, ordering: newOrdering) { number, key in
                loader.append(key, number)
                rows += 1
            }
            cost.recordFetch(nanos: CycleCost.now() - started, rows: rows)
        }
        let fresh = loader.finish()

        let events: [ControllerEvent]
        if keepsOrder && narrows && sameWindow && fetchOffset == 0 && fetchLimit == nil {
            events = deletions(dropped)
        } else {
            events =
                keepsOrder && sameWindow
                ? differenceInOrder(to: fresh) : difference(to: fresh, updatingStaying: stale)
        }
        adopt(newFilter, newOrdering, sectionNameKeyPath, fetchLimit, fetchOffset, model)
        results = fresh
        needsRefetch = false
        return events
    }

    private func adopt(
        _ newFilter: any ObjectFilter, _ newOrdering: any ObjectOrdering, _ sectionNameKeyPath: String?,
        _ fetchLimit: Int?, _ fetchOffset: Int, _ model: ObjectModel
    ) {
        filter = newFilter
        ordering = newOrdering
        self.sectionNameKeyPath = sectionNameKeyPath
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        request = nil
        tracer = DependencyTracer(
            entity: entity, paths: newFilter.relationshipPaths + newOrdering.relationshipPaths, model: model)
        readKeys = nil
    }

    /// A new predicate, same order, sections and window: the rows leaving are those the old
    /// filter matches and the new one does not, the rows entering the reverse; two queries of
    /// k rows each, then a cycle's machinery moves them in the held tree (O(k log n)).
    private func differenceByDelta(from oldFilter: any ObjectFilter, to newFilter: any ObjectFilter)
        throws(EngineError) -> [ControllerEvent]
    {
        var affected: [AffectedRow] = []
        let entity = self.entity
        try source.forEachKeyInAnyOrder(filter: ExceptFilter(keep: oldFilter, drop: newFilter), ordering: ordering) {
            number, key in
            var row = AffectedRow(id: ObjectID(entity: entity, number: number))
            row.oldKey = Array(key)
            affected.append(row)
        }
        try source.forEachKeyInAnyOrder(filter: ExceptFilter(keep: newFilter, drop: oldFilter), ordering: ordering) {
            number, key in
            var row = AffectedRow(id: ObjectID(entity: entity, number: number))
            row.newKey = Array(key)
            affected.append(row)
        }
        guard !affected.isEmpty else { return [] }
        locateOld(&affected, in: results.rows)
        affected.removeAll { $0.oldKey != nil && $0.oldRank == nil }
        let old = recordOldPositions(&affected)
        let entering = mutate(&affected)
        return notifications(&affected, old, entering: entering)
    }

    /// Where each attribute `filter` reads sits in the held keys; nil when it reads anything
    /// the keys do not hold.
    private func keyColumns(for filter: any ObjectFilter) -> [(String, Int)]? {
        guard let read = filter.readAttributes else { return nil }
        let attributes = ordering.keyAttributes
        var columns: [(String, Int)] = []
        for name in read.sorted() {
            guard let column = attributes.firstIndex(of: name) else { return nil }
            columns.append((name, column))
        }
        return columns
    }

    /// A narrowing without a window: every row that leaves is a delete at its old index path,
    /// read off the old sections in one pass; a section left without rows is deleted too.
    /// Walking from the highest rank down yields both lists already in wire order (§10.6).
    func deletions(_ dropped: [(rank: Int, number: Int64)]) -> [ControllerEvent] {
        guard !dropped.isEmpty else { return [] }
        var rowEvents: [ControllerEvent] = []
        rowEvents.reserveCapacity(dropped.count)
        var sectionEvents: [ControllerEvent] = []
        let sections = results.visibleSections()
        // Without a section key path the one section "" stays, even empty (§10.5).
        let sectioned = results.sectioned
        var s = sections.count - 1
        var goneInSection = 0
        for (rank, number) in dropped.reversed() {
            while !sections[s].ranks.contains(rank) {
                if sectioned && goneInSection == sections[s].ranks.count {
                    sectionEvents.append(.section(.delete, index: s, sections[s].info))
                }
                s -= 1
                goneInSection = 0
            }
            goneInSection += 1
            let path = IndexPath(section: s, row: rank - sections[s].ranks.lowerBound)
            rowEvents.append(
                .object(.delete, ObjectID(entity: entity, number: number), indexPath: path, newIndexPath: nil))
        }
        if sectioned && goneInSection == sections[s].ranks.count {
            sectionEvents.append(.section(.delete, index: s, sections[s].info))
        }
        var events: [ControllerEvent] = [.willChangeContent]
        events.reserveCapacity(sectionEvents.count + rowEvents.count + 2)
        events += sectionEvents
        events += rowEvents
        events.append(.didChangeContent)
        return events
    }

    /// Same order, sections and window: the rows that differ are exactly the rows in one of
    /// the two lists, found by one merge walk, and a cycle's machinery places them.
    private func differenceInOrder(to fresh: Results) -> [ControllerEvent] {
        var affected = rowsThatDiffer(from: fresh).map { AffectedRow(id: ObjectID(entity: entity, number: $0)) }
        guard !affected.isEmpty else { return [] }
        locateByWalk(&affected, in: results, old: true)
        locateByWalk(&affected, in: fresh, old: false)
        return replacingResults(with: fresh, &affected)
    }

    /// Any other change: the visible rows of both, compared by id and section name. With
    /// `updatingStaying`, the rows that neither move nor leave are reported updated.
    private func difference(to fresh: Results, updatingStaying: Bool = false) -> [ControllerEvent] {
        let before = VisibleRows(results)
        let after = VisibleRows(fresh)
        // Sections in both whose relative order holds survive (the earliest longest run in
        // new order); the others are deleted and inserted.
        let shared = after.sections.indices.filter { before.sectionIndex[after.sections[$0].info.name] != nil }
        let oldOrder = shared.map { before.sectionIndex[after.sections[$0].info.name]! }
        var surviving = Set<String>()
        for j in earliestLongestIncreasing(oldOrder) { surviving.insert(after.sections[shared[j]].info.name) }
        var sectionEvents: [ControllerEvent] = []
        for (i, s) in before.sections.enumerated() where !surviving.contains(s.info.name) {
            sectionEvents.append(.section(.delete, index: i, s.info))
        }
        for (i, s) in after.sections.enumerated() where !surviving.contains(s.info.name) {
            sectionEvents.append(.section(.insert, index: i, s.info))
        }

        var rows = RowChanges()
        var oldPlace: [Int64: IndexPath] = [:]
        oldPlace.reserveCapacity(before.count)
        before.forEachRow { id, path in oldPlace[id] = path }
        var seen = Set<Int64>()
        seen.reserveCapacity(after.count)
        // Per surviving section: rows that stay in it, in new order, with their old rows.
        var staying: [(old: IndexPath, new: IndexPath, id: ObjectID)] = []
        func settle() {
            let keep = Set(earliestLongestIncreasing(staying.map(\.old.row)))
            for (j, row) in staying.enumerated() {
                if !keep.contains(j) {
                    rows.moves.append(row)
                } else if updatingStaying {
                    rows.updates.append(row)
                }
            }
            staying.removeAll(keepingCapacity: true)
        }
        var section = -1
        after.forEachRow { number, path in
            if path.section != section {
                settle()
                section = path.section
            }
            seen.insert(number)
            let id = ObjectID(entity: entity, number: number)
            guard let old = oldPlace[number] else {
                rows.inserts.append((path, id))
                return
            }
            let name = after.sections[path.section].info.name
            if surviving.contains(name) && before.sections[old.section].info.name == name {
                staying.append((old, path, id))
            } else {
                rows.moves.append((old, path, id))
            }
        }
        settle()
        before.forEachRow { number, path in
            if !seen.contains(number) { rows.deletes.append((path, ObjectID(entity: entity, number: number))) }
        }
        return wireOrder(sectionEvents, rows)
    }
}

/// The visible rows of results, by section, as id numbers.
private struct VisibleRows {
    let sections: [(info: SectionInfo, ids: [Int64])]
    let sectionIndex: [String: Int]
    let count: Int

    init(_ results: Results) {
        var sections: [(info: SectionInfo, ids: [Int64])] = []
        var index: [String: Int] = [:]
        var count = 0
        for s in results.visibleSections() {
            index[s.info.name] = sections.count
            sections.append((s.info, results.rows.ids(in: s.ranks)))
            count += s.ranks.count
        }
        self.sections = sections
        sectionIndex = index
        self.count = count
    }

    func forEachRow(_ body: (Int64, IndexPath) -> Void) {
        for (s, section) in sections.enumerated() {
            for (r, id) in section.ids.enumerated() { body(id, IndexPath(section: s, row: r)) }
        }
    }
}

/// The objects `keep` matches and `drop` does not. In SQL a predicate can be NULL where the
/// evaluator says false, so `drop` counts as false there before it is negated.
private struct ExceptFilter: ObjectFilter {
    let keep: any ObjectFilter
    let drop: any ObjectFilter
    var entity: String { keep.entity }
    func sql(alias: String) -> SQLFragment {
        let k = keep.sql(alias: alias)
        let d = drop.sql(alias: alias)
        return SQLFragment("(\(k.text)) AND NOT COALESCE((\(d.text)), 0)", k.bindings + d.bindings)
    }
    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool {
        keep.matches(id, values, in: view) && !drop.matches(id, values, in: view)
    }
    var relationshipPaths: [[String]] { keep.relationshipPaths + drop.relationshipPaths }
}
