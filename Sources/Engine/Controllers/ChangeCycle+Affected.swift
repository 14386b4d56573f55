import Model

/// Finding the objects a cycle affects and where they are: evaluation of each changed
/// object (incremental cycles) or walks of the old and rebuilt trees (rebuilds).
extension FetchedResultsController {
    /// The incremental update: removals from the highest old rank down (by counts only), then
    /// inserts in ascending key order. Returns the indices of the rows in the results now.
    func mutate(_ affected: inout [AffectedRow]) -> [Int] {
        // Updated as a local and stored back once: each access to the stored property is a
        // dynamic exclusivity check. (The nodes are shared objects changed in place; only
        // the local's root and counts are current until it is stored back.)
        var results = self.results
        defer { self.results = results }
        // A row held before and after at the same key (an update of other values) keeps its
        // entry, which is where removing and re-inserting it would put it; its rank is read
        // back once the others have moved. (No flags at all when none stays, as when the one
        // changed row moved: most cycles change one row, and each array here is a malloc.)
        var staying: [Int] = []
        var stays: [Bool] = []
        for i in affected.indices where affected[i].oldRank != nil && affected[i].newKey != nil {
            if affected[i].newKey == affected[i].oldKey {
                if stays.isEmpty { stays = [Bool](repeating: false, count: affected.count) }
                stays[i] = true
                staying.append(i)
            }
        }
        func moves(_ i: Int) -> Bool { stays.isEmpty || !stays[i] }
        // Ranks paired with their rows: the sort compares plain integers, not rows.
        var leaving: [(rank: Int, row: Int)] = []
        for i in affected.indices where moves(i) {
            if let rank = affected[i].oldRank { leaving.append((rank, i)) }
        }
        if leaving.count > 1 { leaving.sort { $0.rank > $1.rank } }
        for (rank, i) in leaving { results.remove(at: rank, key: affected[i].oldKey!) }
        var entering: [Int] = []
        entering.reserveCapacity(affected.count)
        for i in affected.indices where moves(i) && affected[i].newKey != nil { entering.append(i) }
        if entering.count > 1 { entering = insertionOrder(entering, affected) }
        var scratch = borrowScratchKey(width: results.rows.width)
        defer { returnScratchKey(scratch) }
        for i in entering {
            affected[i].newRank = results.insert(affected[i].newKey!, affected[i].id.number, scratch: &scratch)
        }
        if entering.isEmpty && leaving.isEmpty {
            // Nothing moved: every rank is as it was.
            for i in staying { affected[i].newRank = affected[i].oldRank }
        } else if Self.locatesByWalk(staying.count, in: results.count) {
            let lookup = IDLookup(staying.map { affected[$0].id.number }, rows: results.count)
            results.rows.forEachHeld(lookup) { j, rank, _, _ in affected[staying[j]].newRank = rank }
        } else {
            for i in staying {
                affected[i].newRank = results.rows.find(
                    affected[i].newKey!, id: affected[i].id.number, scratch: &scratch)
            }
        }
        return staying.isEmpty ? entering : entering + staying
    }

    /// The rows entering the tree (`entering`, indices into `affected`) in the order they go
    /// in: ascending key order, so each insert lands near the one before.
    private func insertionOrder(_ entering: [Int], _ affected: [AffectedRow]) -> [Int] {
        let keys = entering.map { affected[$0].newKey! }
        let ids = entering.map { affected[$0].id.number }
        var order = Array(keys.indices)
        // A cheap presort by a numeric proxy of the first component leaves the exact sort
        // (a merge sort that finds runs) about n comparisons instead of n log n when the
        // ordering agrees with it; the exact sort alone decides the order.
        if order.count > 64, let proxies = Self.numericProxies(keys) {
            order.sort { proxies[$0] != proxies[$1] ? proxies[$0] < proxies[$1] : ids[$0] < ids[$1] }
        }
        var sorter = KeySorter(ordering: ordering, keys: keys, ids: ids)
        order.sort { sorter.less($0, $1) }
        return order.map { entering[$0] }
    }

    /// Each key's first component as a plain number, when every one is an integer, double or
    /// date: an order for locality or a presort, never the controller's order itself.
    static func numericProxies(_ keys: [SortKey]) -> [Double]? {
        var proxies: [Double] = []
        proxies.reserveCapacity(keys.count)
        for key in keys {
            switch key.first {
            case .integer(let x)?: proxies.append(Double(x))
            case .double(let x)?, .date(let x)?: proxies.append(x.isNaN ? 0 : x)
            default: return nil
            }
        }
        return proxies
    }

    /// Whether a cycle of `changes` changed objects rebuilds: when the measured costs
    /// predict one fetch plus linear walks to be cheaper than k tree updates (`CycleCost`).
    func shouldRebuild(_ changes: Int, _ rows: Int) -> Bool {
        if let forced = rebuildOverride { return forced }
        return cost.prefersRebuild(changes: changes, held: rows) { source.pendingObjectCount(of: entity) }
    }

    /// A cycle that only deletes objects (none read through a key path), at most half of
    /// the rows held, is never rebuilt: the rows are found in one walk of the tree and
    /// removed by rank, which costs less than fetching the rows that stay (Benchmarks/README.md,
    /// "Measurements behind the code"). A test forcing the choice
    /// has it: incremental (false) always, a rebuild (true) never.
    func removesOnly(_ changeSet: ChangeSet) -> Bool {
        switch rebuildOverride {
        case true?: return false
        case false?: break
        case nil: guard changeSet.changes.count <= results.count / 2 else { return false }
        }
        return tracer.isEmpty && changeSet.changes.allSatisfy { $0.after == nil }
    }

    /// The id numbers whose row is in only one of the current tree and `fresh`, or at a
    /// different key: one merge of the two trees' leaves, keys read into two reused buffers.
    func rowsThatDiffer(from fresh: Results) -> [Int64] {
        var differ: [Int64] = []
        var newLeaves: [Entries] = []
        fresh.rows.forEachLeaf { entries, _ in newLeaves.append(entries) }
        var leaf = 0
        var j = 0
        let width = results.rows.width
        var oldKey = SortKey(repeating: .null, count: width)
        var newKey = oldKey
        // Moves to the next fresh entry (loading its key); false past the last one.
        func loadNew() -> Bool {
            while leaf < newLeaves.count && j == newLeaves[leaf].count {
                leaf += 1
                j = 0
            }
            guard leaf < newLeaves.count else { return false }
            newLeaves[leaf].load(j, into: &newKey)
            return true
        }
        let ordering = self.ordering
        results.rows.forEachLeaf { entries, _ in
            for i in 0..<entries.count {
                entries.load(i, into: &oldKey)
                let oldID = entries.ids[i]
                while loadNew() {
                    let newID = newLeaves[leaf].ids[j]
                    let c = ordering.compare(newKey, oldKey)
                    guard c < 0 || (c == 0 && newID < oldID) else { break }
                    differ.append(newID)
                    j += 1
                }
                if loadNew(), newLeaves[leaf].ids[j] == oldID, newKey == oldKey { j += 1 } else { differ.append(oldID) }
            }
        }
        while loadNew() {
            differ.append(newLeaves[leaf].ids[j])
            j += 1
        }
        return differ
    }

    /// Sets each row's rank and key (as the tree holds it) from one in-order walk of
    /// `results`: the OLD tree, or the rebuilt NEW one.
    func locateByWalk(_ affected: inout [AffectedRow], in results: Results, old: Bool) {
        let lookup = IDLookup(affected.map(\.id.number), rows: results.count)
        var found = [Bool](repeating: false, count: affected.count)
        results.rows.forEachHeld(lookup) { i, rank, leaf, slot in
            found[i] = true
            if old {
                affected[i].oldRank = rank
                affected[i].oldKey = leaf.key(at: slot)
            } else {
                affected[i].newRank = rank
                affected[i].newKey = leaf.key(at: slot)
            }
        }
        for i in affected.indices where !found[i] {
            if old {
                affected[i].oldRank = nil
                affected[i].oldKey = nil
            } else {
                affected[i].newKey = nil
                affected[i].newRank = nil
            }
        }
    }

    /// Sets the old rank of each row from its old key; a row not found that way but found
    /// at its new key was fetched after the change (a controller created in the same
    /// request: the tree already holds the new state). Rows in neither are dropped.
    ///
    /// The searches go in key order: consecutive ones then share the tree's upper nodes and
    /// often a leaf, which searches in change order find out of cache.
    func locateOld(_ found: inout [AffectedRow], in rows: CountedBTree) {
        if Self.locatesByWalk(found.count, in: rows.count) {
            locateOldByWalk(&found, in: rows)
            return
        }
        var lookups = found.indices.filter { found[$0].oldKey != nil }
        if lookups.count > 64 {
            // Any order gives the same ranks; this one is only for locality, so numeric first
            // components sort as plain numbers (either direction of the ordering is as local).
            if let proxies = Self.numericProxies(lookups.map { found[$0].oldKey! }) {
                lookups = Array(lookups.indices).sorted { proxies[$0] < proxies[$1] }.map { lookups[$0] }
            } else {
                var sorter = KeySorter(
                    ordering: ordering, keys: lookups.map { found[$0].oldKey! },
                    ids: lookups.map { found[$0].id.number })
                lookups = Array(lookups.indices).sorted { sorter.less($0, $1) }.map { lookups[$0] }
            }
        }
        var scratch = borrowScratchKey(width: rows.width)
        defer { returnScratchKey(scratch) }
        for i in lookups { found[i].oldRank = rows.find(found[i].oldKey!, id: found[i].id.number, scratch: &scratch) }
        for i in found.indices where found[i].oldRank == nil {
            if let key = found[i].newKey, let rank = rows.find(key, id: found[i].id.number, scratch: &scratch) {
                found[i].oldKey = key
                found[i].oldRank = rank
            }
        }
        found.removeAll { $0.oldRank == nil && $0.newKey == nil }
    }

    /// `locateOld` in one walk of the tree for many rows: each row held is found by its id,
    /// and counts as found at its old key, else at its new key, exactly when a search for
    /// that key would find it.
    func locateOldByWalk(_ found: inout [AffectedRow], in rows: CountedBTree) {
        let lookup = IDLookup(found.map(\.id.number), rows: rows.count)
        var scratch = SortKey(repeating: .null, count: rows.width)
        let compare = rows.compare
        rows.forEachHeld(lookup) { i, rank, leaf, slot in
            leaf.load(slot, into: &scratch)
            if let key = found[i].oldKey, compare(scratch, key) == 0 {
                found[i].oldRank = rank
            } else if let key = found[i].newKey, compare(scratch, key) == 0 {
                found[i].oldKey = key
                found[i].oldRank = rank
            }
        }
        found.removeAll { $0.oldRank == nil && $0.newKey == nil }
    }

    /// The changed objects of the entity with their old key and, when they match now, their
    /// new key; without `locate`, only their ids.
    func evaluated(
        _ changeList: [ChangeSet.Change], _ changes: [ObjectID: ChangeSet.Change], locate: Bool
    ) -> [AffectedRow] {
        // Locals: the stored properties would be re-read (and checked, and the existentials
        // copied) for every change.
        let entity = self.entity
        let source = self.source
        let ordering = self.ordering
        let filter = self.filter
        // One existential box each for the whole cycle, not one per key computed.
        let view: any ObjectView = source
        let old: any ObjectView = tracer.isEmpty ? view : OldView(current: source, changes: changes)
        var found: [AffectedRow] = []
        found.reserveCapacity(changeList.count)
        for change in changeList where change.id.entity == entity && change.changesValues {
            let id = change.id
            var row = AffectedRow(id: id)
            guard locate else {
                found.append(row)
                continue
            }
            if let before = change.before { row.oldKey = ordering.key(of: id, before, in: old) }
            if let after = change.after, filter.matches(id, after, in: view) {
                row.newKey = ordering.key(of: id, after, in: view)
            }
            if row.oldKey != nil || row.newKey != nil { found.append(row) }
        }
        return found
    }

    /// With `evaluate` false (a rebuild) only the ids are collected: `locateByWalk` reads
    /// keys and ranks from the old and the rebuilt trees. `shared` hands the evaluated rows
    /// of controllers with the same request to each other.
    func collectAffected(
        _ changeList: [ChangeSet.Change], _ changes: [ObjectID: ChangeSet.Change],
        evaluate locate: Bool, shared: CycleKeys? = nil
    ) -> [AffectedRow] {
        let rows = results.rows
        var found: [AffectedRow]
        if locate, let shared, let signature = keysSignature {
            found = shared.rows(signature) { evaluated(changeList, changes, locate: true) }
        } else {
            found = evaluated(changeList, changes, locate: locate)
        }
        if locate { locateOld(&found, in: rows) }
        if !tracer.isEmpty {
            let source = self.source
            // One existential box for the whole cycle, not one per key computed.
            let old: any ObjectView = OldView(current: source, changes: changes)
            for id in tracer.dependents(of: changes, in: source) {
                // Objects that changed themselves were handled above.
                if let own = changes[id], own.changesValues { continue }
                guard let values = changes[id]?.after ?? source.snapshot(of: id) else { continue }
                var row = AffectedRow(id: id)
                row.isDependent = true
                guard locate else {
                    found.append(row)
                    continue
                }
                let key = ordering.key(of: id, values, in: old)
                row.oldKey = key
                if filter.matches(id, values, in: source) { row.newKey = ordering.key(of: id, values, in: source) }
                row.oldRank = rows.find(key, id: id.number)
                // A dependent is changed when what the controller reads of it changed.
                if row.oldRank == nil && row.newKey == nil { continue }
                if row.oldRank != nil, row.newKey == row.oldKey { continue }
                found.append(row)
            }
        }
        return found
    }
}
