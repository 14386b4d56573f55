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
        // Only key paths through relationships read other objects' old values; without them
        // no lookup table of the changes is needed.
        var changes: [ObjectID: ChangeSet.Change] = [:]
        if !tracer.isEmpty {
            changes.reserveCapacity(changeSet.changes.count)
            for change in changeSet.changes { changes[change.id] = change }
        }
        // A failed fetch falls back to the incremental path, which needs no query.
        var rebuilt: Results?
        if shouldRebuild(changeSet.changes.count, results.count), let fresh = try? fetchSorted() {
            rebuilt = results.emptyCopy()
            rebuilt!.load(fresh)
        }
        var affected = collectAffected(changeSet.changes, changes, evaluate: rebuilt == nil)
        if let rebuilt {
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
        for i in affected.indices {
            guard let rank = affected[i].oldRank, let key = affected[i].oldKey else { continue }
            affected[i].oldPath = results.indexPath(rank: rank, key: key, firstSection: firstOld) { k in
                cachedStart(&oldStarts, k)
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
        for i in entering {
            affected[i].newPath = results.indexPath(rank: affected[i].newRank!, key: affected[i].newKey!,
                                                    firstSection: firstNew) { k in cachedStart(&newStarts, k) }
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
                let path = results.indexPath(rank: rank, key: key, firstSection: firstNew) { k in
                    cachedStart(&newStarts, k)
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
        for (i, row) in affected.enumerated() {
            switch (row.oldPath, row.newPath) {
            case let (old?, nil): deletes.append((old, row.id))
            case let (nil, new?): inserts.append((new, row.id))
            case let (old?, new?):
                let gapOld = min(max(unchangedBefore(row.oldRank!, changedOld), low), high)
                let gapNew = min(max(unchangedBefore(row.newRank!, changedNew), low), high)
                if gapOld != gapNew || results.sectionName(row.oldKey!) != results.sectionName(row.newKey!) {
                    moves.append((old, new, row.id))
                } else {
                    candidates.append((gapNew, row.newRank!, i))
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

    /// The incremental update: removals from the highest old rank down (by counts only), then
    /// inserts in ascending key order. Returns the indices of the rows in the results now.
    private func mutate(_ affected: inout [AffectedRow]) -> [Int] {
        var leaving = affected.indices.filter { affected[$0].oldRank != nil }
        leaving.sort { affected[$0].oldRank! > affected[$1].oldRank! }
        for i in leaving { results.remove(at: affected[i].oldRank!, key: affected[i].oldKey!) }
        var newEntries: [(key: SortKey, id: Int64, index: Int)] = []
        newEntries.reserveCapacity(affected.count)
        for i in affected.indices { if let key = affected[i].newKey { newEntries.append((key, affected[i].id.number, i)) } }
        if newEntries.count > 1 {
            let ordering = self.ordering
            newEntries.sort { a, b in
                let c = ordering.compare(a.key, b.key)
                return c != 0 ? c < 0 : a.id < b.id
            }
        }
        for e in newEntries { affected[e.index].newRank = results.insert(e.key, e.id) }
        return newEntries.map(\.index)
    }

    /// Whether a cycle of `changes` changed objects over `rows` results rebuilds: when the
    /// changes are at least an eighth of the results (and more than a few hundred), one
    /// fetch and two linear walks cost less than k tree updates.
    func shouldRebuild(_ changes: Int, _ rows: Int) -> Bool {
        if let forced = rebuildOverride { return forced }
        return changes >= 512 && changes * 8 >= rows
    }

    /// Sets each row's rank and key (as the tree holds it) from one in-order walk of
    /// `results`: the OLD tree, or the rebuilt NEW one.
    private func locateByWalk(_ affected: inout [AffectedRow], in results: Results, old: Bool) {
        let lookup = IDLookup(affected.map(\.id.number), rows: results.count)
        var found = [Bool](repeating: false, count: affected.count)
        var rank = 0
        results.rows.forEachID { id, key in
            if let i = lookup[id] {
                found[i] = true
                if old { affected[i].oldRank = rank; affected[i].oldKey = key() }
                else { affected[i].newRank = rank; affected[i].newKey = key() }
            }
            rank += 1
        }
        for i in affected.indices where !found[i] {
            if old { affected[i].oldRank = nil; affected[i].oldKey = nil } else { affected[i].newKey = nil; affected[i].newRank = nil }
        }
    }

    /// With `evaluate` false (a rebuild) only the ids are collected: `locateByWalk` reads
    /// keys and ranks from the old and the rebuilt trees.
    func collectAffected(_ changeList: [ChangeSet.Change], _ changes: [ObjectID: ChangeSet.Change],
                         evaluate locate: Bool) -> [AffectedRow] {
        // One existential box for the whole cycle, not one per key computed.
        let old: any ObjectView = tracer.isEmpty ? source : OldView(current: source, changes: changes)
        var rows: [AffectedRow] = []
        rows.reserveCapacity(changeList.count)
        for change in changeList where change.id.entity == entity && change.before != change.after {
            let id = change.id
            var row = AffectedRow(id: id)
            guard locate else { rows.append(row); continue }
            if let before = change.before {
                let key = ordering.key(of: id, before, in: old)
                row.oldKey = key
                row.oldRank = results.rows.find(key, id: id.number)
            }
            if let after = change.after, filter.matches(id, after, in: source) {
                row.newKey = ordering.key(of: id, after, in: source)
            }
            if row.oldRank != nil || row.newKey != nil { rows.append(row) }
        }
        if !tracer.isEmpty {
            for id in tracer.dependents(of: changes, in: source) {
                // Objects that changed themselves were handled above.
                if let own = changes[id], own.before != own.after { continue }
                guard let values = changes[id]?.after ?? source.snapshot(of: id) else { continue }
                var row = AffectedRow(id: id)
                row.isDependent = true
                guard locate else { rows.append(row); continue }
                let key = ordering.key(of: id, values, in: old)
                row.oldKey = key
                if filter.matches(id, values, in: source) { row.newKey = ordering.key(of: id, values, in: source) }
                row.oldRank = results.rows.find(key, id: id.number)
                // A dependent is changed when what the controller reads of it changed.
                if row.oldRank == nil && row.newKey == nil { continue }
                if row.oldRank != nil, row.newKey == row.oldKey { continue }
                rows.append(row)
            }
        }
        rows.sort { $0.id.number < $1.id.number }
        return rows
    }

    /// The integers of `r` that are not in `s`: at most one run below `s`, one above.
    private func indices(in r: Range<Int>, notIn s: Range<Int>) -> [Int] {
        func clamp(_ x: Int) -> Int { min(max(x, r.lowerBound), r.upperBound) }
        return Array(r.lowerBound..<clamp(s.lowerBound)) + Array(clamp(s.upperBound)..<r.upperBound)
    }

    private func cachedStart(_ cache: inout [String: Int], _ key: SortKey) -> Int {
        let name = results.sectionName(key)
        if let start = cache[name] { return start }
        let start = results.sectionRange(key).lowerBound
        cache[name] = start
        return start
    }

    /// Unchanged rows at ranks below `rank`, given the sorted ranks of the changed rows.
    private func unchangedBefore(_ rank: Int, _ changed: [Int]) -> Int {
        var lo = 0, hi = changed.count
        while lo < hi { let mid = (lo + hi) / 2; if changed[mid] < rank { lo = mid + 1 } else { hi = mid } }
        return rank - lo
    }

    /// The rank of the `u`-th unchanged row, given the sorted ranks of the changed rows.
    private func rankOfUnchanged(_ u: Int, _ changed: [Int]) -> Int {
        var rank = u
        for c in changed { if c <= rank { rank += 1 } else { break } }
        return rank
    }

    /// Records the unchanged rows with unchanged-indices in `range`, with old index paths.
    private func recordEdges(_ range: Range<Int>, _ changed: [Int], _ firstOld: Int, _ starts: inout [String: Int],
                             into edges: inout [Int: EdgeRow]) {
        let changedSet = Set(changed)
        var rank = rankOfUnchanged(range.lowerBound, changed)
        var u = range.lowerBound
        while u < range.upperBound {
            if !changedSet.contains(rank) {
                if edges[u] == nil {
                    let (key, id) = results.rows.select(rank)
                    let path = results.indexPath(rank: rank, key: key, firstSection: firstOld) { k in
                        cachedStart(&starts, k)
                    }
                    edges[u] = EdgeRow(id: id, key: key, oldPath: path)
                }
                u += 1
            }
            rank += 1
        }
    }
}

/// Position of an id number in a list, for walks over every row: a flat table when the
/// numbers are dense enough (the usual case: they are row ids), a dictionary otherwise.
struct IDLookup {
    private var table: [Int32] = []
    private var map: [Int64: Int] = [:]

    init(_ numbers: [Int64], rows: Int) {
        let maxNumber = numbers.max() ?? 0
        if maxNumber < Int64(4 * max(rows, numbers.count) + 1024), numbers.allSatisfy({ $0 >= 0 }) {
            table = [Int32](repeating: -1, count: Int(maxNumber) + 1)
            for (i, n) in numbers.enumerated() { table[Int(n)] = Int32(i) }
        } else {
            map.reserveCapacity(numbers.count)
            for (i, n) in numbers.enumerated() { map[n] = i }
        }
    }

    subscript(_ number: Int64) -> Int? {
        if !table.isEmpty {
            guard number >= 0, number < Int64(table.count) else { return nil }
            let i = table[Int(number)]
            return i < 0 ? nil : Int(i)
        }
        return map[number]
    }
}
