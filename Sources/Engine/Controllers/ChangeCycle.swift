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
    /// wire order (SEMANTICS §4); empty when the results did not change.
    ///
    /// O(k log n) for k affected objects: old positions come from old keys (before
    /// snapshots seen through `OldView`), then the tree is updated, then new positions.
    /// A cycle changing a large part of the results rebuilds instead (`shouldRebuild`): old
    /// positions from one walk of the old tree, a fresh keyed fetch, new positions from one
    /// walk of the new tree; the notifications are the same either way.
    public func apply(_ changeSet: ChangeSet) -> [ControllerEvent] {
        guard !changeSet.isEmpty else { return [] }
        let started = CycleCost.now()
        var rebuiltThisCycle = false
        defer {
            if !rebuiltThisCycle { cost.recordIncremental(nanos: CycleCost.now() - started, changes: changeSet.changes.count) }
        }
        // Only key paths through relationships read other objects' old values; without them
        // no lookup table of the changes is needed.
        var changes: [ObjectID: ChangeSet.Change] = [:]
        if !tracer.isEmpty {
            changes.reserveCapacity(changeSet.changes.count)
            for change in changeSet.changes { changes[change.id] = change }
        }
        // A failed fetch falls back to the incremental path, which needs no query.
        var rebuilt: Results?
        var moved: [Int64] = []
        if shouldRebuild(changeSet.changes.count, results.count), let fresh = try? fetchResults() {
            rebuiltThisCycle = true
            rebuilt = fresh
            cost.fetchNanos = CycleCost.now() - started
            moved = rowsThatDiffer(from: fresh)
        }
        lastCycleRebuilt = rebuiltThisCycle
        var affected = collectAffected(changeSet.changes, changes, evaluate: rebuilt == nil)
        if let rebuilt {
            // The fetch shows the context as it is now, which can be ahead of this change set
            // (a context delivering several sets in a row): every row that differs between
            // the two trees is affected, named in the set or not.
            var named = Set(affected.map(\.id.number))
            for number in moved where named.insert(number).inserted {
                affected.append(AffectedRow(id: ObjectID(entity: entity, number: number)))
            }
            // Old and new keys and ranks straight from the two trees.
            locateByWalk(&affected, in: results, old: true)
            locateByWalk(&affected, in: rebuilt, old: false)
            affected.removeAll { row in
                (row.oldRank == nil && row.newRank == nil)
                    || (row.isDependent && row.oldRank != nil && row.newRank != nil && row.newKey == row.oldKey)
            }
        }
        guard !affected.isEmpty else { return [] }

        // 1. Old positions, edge rows and section candidates, before touching the tree.
        let firstOld = results.firstVisibleSectionRank()
        var oldStarts: [String: Int] = [:]
        let old = results
        for i in affected.indices {
            guard let rank = affected[i].oldRank, let key = affected[i].oldKey else { continue }
            affected[i].oldPath = old.indexPath(rank: rank, key: key, firstSection: firstOld) { k in
                cachedStart(&oldStarts, k, in: old)
            }
        }
        let changedOld = affected.compactMap(\.oldRank).sorted()
        let windowed = results.offset > 0 || results.limit != Int.max
        let oldCount = results.count
        let a1 = unchangedBefore(results.offset, changedOld), b1 = unchangedBefore(results.windowEnd, changedOld)
        let margin = 2 * affected.count + 1
        var edges: [Int: EdgeRow] = [:]
        if windowed {
            let unchangedCount = oldCount - changedOld.count
            for range in [max(0, a1 - margin)..<min(unchangedCount, a1 + margin),
                          max(0, b1 - margin)..<min(unchangedCount, b1 + margin)] where !range.isEmpty {
                recordEdges(range, changedOld, firstOld, &oldStarts, into: &edges)
            }
        }
        var sectionKeys: [String: SortKey] = [:]
        if results.sectioned {
            for row in affected {
                for key in [row.oldRank == nil ? nil : row.oldKey, row.newKey] {
                    if let key { sectionKeys[results.sectionName(key)] = key }
                }
            }
            for edge in edges.values { sectionKeys[results.sectionName(edge.key)] = edge.key }
        }
        let oldSections = sectionKeys.mapValues { results.visibleSection($0, firstSection: firstOld) }

        // 2. Mutate: every old entry out, then every new entry in, in ascending order so
        // each insert's rank is final (later inserts land after it). Or rebuild.
        let entering: [Int]
        if let rebuilt {
            results = rebuilt
            entering = affected.indices.filter { affected[$0].newRank != nil }
        } else {
            entering = mutate(&affected)
        }


        // 3. New positions.
        let firstNew = results.firstVisibleSectionRank()
        var newStarts: [String: Int] = [:]
        let now = results
        for i in entering {
            affected[i].newPath = now.indexPath(rank: affected[i].newRank!, key: affected[i].newKey!,
                                                firstSection: firstNew) { k in cachedStart(&newStarts, k, in: now) }
        }
        let changedNew = affected.compactMap(\.newRank).sorted()
        let a2 = unchangedBefore(results.offset, changedNew), b2 = unchangedBefore(results.windowEnd, changedNew)

        var sectionEvents: [ControllerEvent] = []
        var deletes: [(IndexPath, ObjectID)] = [], inserts: [(IndexPath, ObjectID)] = []
        var moves: [(IndexPath, IndexPath, ObjectID)] = [], updates: [(IndexPath, IndexPath, ObjectID)] = []

        // 4. Window edges: unchanged rows pushed out of or into the window.
        if windowed {
            for u in indices(in: a1..<b1, notIn: a2..<b2) {
                guard let edge = edges[u], let path = edge.oldPath else {
                    preconditionFailure("edge row \(u) was not recorded")
                }
                deletes.append((path, ObjectID(entity: entity, number: edge.id)))
            }
            for u in indices(in: a2..<b2, notIn: a1..<b1) {
                let rank = rankOfUnchanged(u, changedNew)
                let (key, id) = results.rows.select(rank)
                let path = now.indexPath(rank: rank, key: key, firstSection: firstNew) { k in
                    cachedStart(&newStarts, k, in: now)
                }
                guard let path else { preconditionFailure("entering row \(id) is not visible") }
                inserts.append((path, ObjectID(entity: entity, number: id)))
            }
        }

        // 5. Sections that appeared or disappeared.
        for (name, key) in sectionKeys {
            let before = oldSections[name] ?? nil
            let after = results.visibleSection(key, firstSection: firstNew)
            if let before, after == nil { sectionEvents.append(.section(.delete, index: before.index, before.info)) }
            if before == nil, let after { sectionEvents.append(.section(.insert, index: after.index, after.info)) }
        }

        // 6. Classify the changed rows. Survivors whose section and gap (unchanged
        // survivors before them) are the same in OLD and NEW may stay; the gap grows with the
        // new rank, so in new-rank order each gap is one run, and each run keeps its longest
        // increasing run of old ranks.
        let low = max(a1, a2), high = min(b1, b2)
        var candidates: [(gap: Int, newRank: Int, index: Int)] = []
        candidates.reserveCapacity(affected.count)
        for i in affected.indices {
            switch (affected[i].oldPath, affected[i].newPath) {
            case let (old?, nil): deletes.append((old, affected[i].id))
            case let (nil, new?): inserts.append((new, affected[i].id))
            case let (old?, new?):
                let oldRank = affected[i].oldRank!, newRank = affected[i].newRank!
                let gapOld = min(max(unchangedBefore(oldRank, changedOld), low), high)
                let gapNew = min(max(unchangedBefore(newRank, changedNew), low), high)
                if gapOld != gapNew
                    || (results.sectioned && results.sectionName(affected[i].oldKey!) != results.sectionName(affected[i].newKey!)) {
                    moves.append((old, new, affected[i].id))
                } else {
                    candidates.append((gapNew, newRank, i))
                }
            case (nil, nil): break
            }
        }
        candidates.sort { $0.newRank < $1.newRank }
        var start = 0
        while start < candidates.count {
            var end = start + 1
            while end < candidates.count && candidates[end].gap == candidates[start].gap { end += 1 }
            var stays = [Bool](repeating: end - start == 1, count: end - start)
            if end - start > 1 {
                for j in earliestLongestIncreasing(candidates[start..<end].map { affected[$0.index].oldRank! }) { stays[j] = true }
            }
            for (j, c) in candidates[start..<end].enumerated() {
                let change = (affected[c.index].oldPath!, affected[c.index].newPath!, affected[c.index].id)
                if stays[j] { updates.append(change) } else { moves.append(change) }
            }
            start = end
        }

        // 7. Wire order.
        guard !(sectionEvents.isEmpty && deletes.isEmpty && inserts.isEmpty && moves.isEmpty && updates.isEmpty) else {
            return []
        }
        var events: [ControllerEvent] = [.willChangeContent]
        func sectionIndex(_ e: ControllerEvent) -> Int { if case let .section(_, i, _) = e { return i }; return 0 }
        func isDelete(_ e: ControllerEvent) -> Bool { if case .section(.delete, _, _) = e { return true }; return false }
        events += sectionEvents.filter(isDelete).sorted { sectionIndex($0) > sectionIndex($1) }
        events += sectionEvents.filter { !isDelete($0) }.sorted { sectionIndex($0) < sectionIndex($1) }
        events += deletes.sorted { $0.0 > $1.0 }.map { .object(.delete, $0.1, indexPath: $0.0, newIndexPath: nil) }
        events += moves.sorted { $0.1 < $1.1 }.map { .object(.move, $0.2, indexPath: $0.0, newIndexPath: $0.1) }
        events += inserts.sorted { $0.0 < $1.0 }.map { .object(.insert, $0.1, indexPath: nil, newIndexPath: $0.0) }
        events += updates.sorted { $0.1 < $1.1 }.map { .object(.update, $0.2, indexPath: $0.0, newIndexPath: $0.1) }
        events.append(.didChangeContent)
        return events
    }
}
