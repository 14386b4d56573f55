import Model

/// One changed object as the cycle sees it, old state first, then new.
struct AffectedRow {
    let id: ObjectID
    /// Key and rank in the tree before the cycle; nil rank when it was not a match.
    var oldKey: SortKey?
    var oldRank: Int?
    /// Key when it matches after the cycle; nil when it does not.
    var newKey: SortKey?
    var newRank: Int?
    var oldPath: IndexPath?
    var newPath: IndexPath?
    /// Reported because it reads a changed object through a key path, not for its own values.
    var isDependent = false
}

/// An unchanged row near a window edge, recorded before the tree changes: it may be
/// pushed into or out of the fetchOffset/fetchLimit window.
struct EdgeRow {
    let id: Int64
    let key: SortKey
    let oldPath: IndexPath?
}

extension FetchedResultsController {
    /// Applies one change cycle of the source and returns the notifications it causes, in
    /// wire order (protocol.md §10.6); empty when the results did not change.
    ///
    /// O(k log n) for k affected objects: old positions come from old keys (before
    /// snapshots seen through `OldView`), then the tree is updated, then new positions.
    /// A cycle changing a large part of the results rebuilds instead (`shouldRebuild`): old
    /// positions from one walk of the old tree, a fresh keyed fetch, new positions from one
    /// walk of the new tree; the notifications are the same either way. Many affected rows
    /// are found by one walk of the tree rather than a search each (`locatesByWalk`), and a
    /// cycle of updates to keys the controller does not read leaves the tree as it is
    /// (`applyInPlace`); one of deletes without a window is read off the old sections
    /// (`applyRemovals`).
    ///
    /// A cycle that needs a fresh fetch and cannot make it reports nothing here; `applyCycle`
    /// tells why (`CycleNotifications.failed`).
    public func apply(_ changeSet: ChangeSet) -> [ControllerEvent] { applyCycle(changeSet).events }

    /// `apply`, with a fill of a controller that held nothing kept as its rows
    /// (`CycleNotifications.filled`) for a consumer that takes a cycle whole, and a fetch
    /// that failed reported (`.failed`, the controller then `needsRefetch`). `keys`, one per
    /// change set, shares what the set's objects give under a request among the controllers
    /// that have it (`CycleKeys`).
    public func applyCycle(_ changeSet: ChangeSet, sharing keys: CycleKeys? = nil) -> CycleNotifications {
        guard !changeSet.isEmpty else { return .events([]) }
        // Results left behind by a failed fetch cannot take this cycle's changes on top.
        if changeSet.refetch || needsRefetch { return refetchCycle() }
        // Not measured for the rebuild choice: such a cycle never rebuilds.
        if let events = applyInPlace(changeSet) { return .events(events) }
        let removing = removesOnly(changeSet)
        if removing, let events = applyRemovals(changeSet) { return .events(events) }
        let started = CycleCost.now()
        var rebuiltThisCycle = false
        defer {
            // Cycles that only remove rows cost far less per change than others: measuring
            // them would make the next big cycle of inserts or moves look cheap.
            if !rebuiltThisCycle && !removing {
                cost.recordIncremental(nanos: CycleCost.now() - started, changes: changeSet.changes.count)
            }
        }
        let changes = changesByID(changeSet)
        var rebuilt: Results?
        var moved: [Int64] = []
        // A failed fetch is not an error of the cycle: the incremental path needs no query
        // and reports the same notifications (hence `try?`).
        if !removing, shouldRebuild(changeSet.changes.count, results.count), let fresh = try? fetchResults() {
            rebuiltThisCycle = true
            rebuilt = fresh
            cost.recordFetch(nanos: CycleCost.now() - started, rows: fresh.count)
            // Nothing held (a bulk fill): every row is an insert, nothing to compare.
            if results.count == 0 {
                lastCycleRebuilt = true
                return filled(fresh)
            }
            moved = rowsThatDiffer(from: fresh)
        }
        lastCycleRebuilt = rebuiltThisCycle
        var affected = collectAffected(changeSet.changes, changes, evaluate: rebuilt == nil, shared: keys)
        if let rebuilt { locateInBothTrees(&affected, moved: moved, rebuilt: rebuilt) }
        guard !affected.isEmpty else { return .events([]) }

        // Old positions before touching the tree; then every old entry out and every new
        // entry in (or the rebuilt tree swapped in); then new positions.
        let old = recordOldPositions(&affected)
        let entering: [Int]
        if let rebuilt {
            results = rebuilt
            entering = affected.indices.filter { affected[$0].newRank != nil }
        } else {
            entering = mutate(&affected)
        }
        return .events(notifications(&affected, old, entering: entering))
    }

    /// The end of every cycle, once the tree holds the new state: new positions, rows pushed
    /// across the window's edges, section changes, then the rows classified, in wire order.
    func notifications(_ affected: inout [AffectedRow], _ old: OldPositions, entering: [Int]) -> [ControllerEvent] {
        var new = locateNewPositions(&affected, entering)
        var rows = RowChanges()
        if old.windowed { windowEdgeChanges(old, &new, into: &rows) }
        let sectionEvents = sectionChanges(old, new)
        classifyChangedRows(affected, old, new, into: &rows)
        return wireOrder(sectionEvents, rows)
    }

    /// A rebuild when nothing was held (a first load, a bulk insert into an empty entity):
    /// every visible row of the fresh results is an insert, and with a section key path so
    /// is every visible section (the one section "" exists empty or not, §10.5). The rows are
    /// read once, in order; none of the per-row bookkeeping of a cycle.
    func filled(_ fresh: Results) -> CycleNotifications {
        results = fresh
        guard fresh.visibleCount > 0 else { return .events([]) }
        let sections = fresh.visibleSections().map {
            ControllerFill.Section(info: $0.info, numbers: fresh.rows.ids(in: $0.ranks))
        }
        return .filled(ControllerFill(entity: entity, sectioned: fresh.sectioned, sections: sections))
    }

    /// A cycle whose new state is a fresh tree (`refetch`, setRequest): rows located in both
    /// trees, the fresh one swapped in.
    func replacingResults(with fresh: Results, _ affected: inout [AffectedRow]) -> [ControllerEvent] {
        let old = recordOldPositions(&affected)
        results = fresh
        return notifications(&affected, old, entering: affected.indices.filter { affected[$0].newRank != nil })
    }

    /// `refetch`, or its failure: the results stay as they were and the controller
    /// `needsRefetch` until a fetch succeeds.
    func refetchCycle() -> CycleNotifications {
        do {
            return .events(try refetch())
        } catch {
            needsRefetch = true
            return .failed(error)
        }
    }

    /// A fresh fetch replaces the results when what changed is unknown: every row of the old
    /// or the new results is affected, so a row in both is reported updated (its values may
    /// have changed), and the rest as deletes, inserts and moves. On an error nothing changes.
    func refetch() throws(EngineError) -> [ControllerEvent] {
        let fresh = try fetchResults()
        needsRefetch = false
        lastCycleRebuilt = true
        var ids = Set(rowsThatDiffer(from: fresh))
        results.rows.forEachLeaf { entries, _ in ids.formUnion(entries.ids) }
        var affected = ids.sorted().map { AffectedRow(id: ObjectID(entity: entity, number: $0)) }
        locateByWalk(&affected, in: results, old: true)
        locateByWalk(&affected, in: fresh, old: false)
        affected.removeAll { $0.oldRank == nil && $0.newRank == nil }
        guard !affected.isEmpty else { return [] }
        return replacingResults(with: fresh, &affected)
    }

    /// The changes by id, for reading other objects' old values; only key paths through
    /// relationships do, so without them the table stays empty.
    func changesByID(_ changeSet: ChangeSet) -> [ObjectID: ChangeSet.Change] {
        var changes: [ObjectID: ChangeSet.Change] = [:]
        guard !tracer.isEmpty else { return changes }
        changes.reserveCapacity(changeSet.changes.count)
        for change in changeSet.changes { changes[change.id] = change }
        return changes
    }

    /// A rebuild's affected rows: the fetch shows the context as it is now, which can be
    /// ahead of this change set (a context delivering several sets in a row), so every row
    /// that differs between the two trees is affected, named in the set or not. Old and new
    /// keys and ranks come straight from the two trees.
    func locateInBothTrees(_ affected: inout [AffectedRow], moved: [Int64], rebuilt: Results) {
        var named = Set(affected.map(\.id.number))
        for number in moved where named.insert(number).inserted {
            affected.append(AffectedRow(id: ObjectID(entity: entity, number: number)))
        }
        locateByWalk(&affected, in: results, old: true)
        locateByWalk(&affected, in: rebuilt, old: false)
        affected.removeAll { row in
            (row.oldRank == nil && row.newRank == nil)
                || (row.isDependent && row.oldRank != nil && row.newRank != nil && row.newKey == row.oldKey)
        }
    }

    /// The cycle's notifications in wire order (protocol.md §10.6): section deletes (highest
    /// index first), section inserts, row deletes (highest path first), moves, inserts and
    /// updates (by new path); nothing when no row or section changed.
    func wireOrder(_ sectionEvents: [ControllerEvent], _ rows: RowChanges) -> [ControllerEvent] {
        guard !(sectionEvents.isEmpty && rows.isEmpty) else { return [] }
        // One array, a group sorted only when it has more than one entry: most cycles change
        // one row, and a sorted, mapped copy of every group cost as much as the tree's work.
        var events: [ControllerEvent] = []
        events.reserveCapacity(
            sectionEvents.count + rows.deletes.count + rows.moves.count + rows.inserts.count + rows.updates.count + 2)
        events.append(.willChangeContent)
        func sectionIndex(_ e: ControllerEvent) -> Int {
            if case .section(_, let i, _) = e { return i }
            return 0
        }
        func isDelete(_ e: ControllerEvent) -> Bool {
            if case .section(.delete, _, _) = e { return true }
            return false
        }
        if !sectionEvents.isEmpty {
            events += sectionEvents.filter(isDelete).sorted { sectionIndex($0) > sectionIndex($1) }
            events += sectionEvents.filter { !isDelete($0) }.sorted { sectionIndex($0) < sectionIndex($1) }
        }
        func inOrder<T>(_ group: [T], _ less: (T, T) -> Bool) -> [T] {
            group.count > 1 ? group.sorted(by: less) : group
        }
        for (path, id) in inOrder(rows.deletes, { $0.0 > $1.0 }) {
            events.append(.object(.delete, id, indexPath: path, newIndexPath: nil))
        }
        for (from, to, id) in inOrder(rows.moves, { $0.1 < $1.1 }) {
            events.append(.object(.move, id, indexPath: from, newIndexPath: to))
        }
        for (path, id) in inOrder(rows.inserts, { $0.0 < $1.0 }) {
            events.append(.object(.insert, id, indexPath: nil, newIndexPath: path))
        }
        for (from, to, id) in inOrder(rows.updates, { $0.1 < $1.1 }) {
            events.append(.object(.update, id, indexPath: from, newIndexPath: to))
        }
        events.append(.didChangeContent)
        return events
    }
}
