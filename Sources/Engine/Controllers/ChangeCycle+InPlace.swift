import Model

/// Two kinds of big cycle with no need for the general bookkeeping: updates that change
/// nothing the controller reads (a batch setting a body the controller neither sorts,
/// sections nor filters by: every row keeps its entry and rank), and deletes without a
/// window (every row leaving is a delete at its old path).
extension FetchedResultsController {
    /// The own attributes the ordering (sections included: their key is its first
    /// component) and the filter read; nil when either reads anything else or cannot say.
    func ownReadKeys() -> Set<String>? {
        if let known = readKeys { return known }
        let keys = readKeysOfRequest()
        readKeys = .some(keys)
        return keys
    }

    private func readKeysOfRequest() -> Set<String>? {
        guard tracer.isEmpty, var keys = filter.readAttributes else { return nil }
        let attributes = ordering.keyAttributes
        // An ordering that cannot say answers no attributes for a key that has components.
        guard attributes.count == results.rows.width else { return nil }
        for a in attributes {
            guard let a else { return nil }
            keys.insert(a)
        }
        return keys
    }

    /// A cycle whose changes of this entity are all updates of keys the controller does not
    /// read leaves the tree as it is: each changed row it holds is an update at its own
    /// index path, in rank order (which is wire order), with no move to look for. Nil when
    /// the cycle is of another kind, or the tree does not hold exactly the rows that match
    /// (the general path then decides, and gives the same notifications).
    func applyInPlace(_ changeSet: ChangeSet) -> [ControllerEvent]? {
        // A test forcing rebuilds means them for every cycle.
        guard rebuildOverride != true, let read = ownReadKeys() else { return nil }
        let entity = self.entity
        // First whether every change is of this kind (most cycles that are not say so at their
        // first change), before anything is copied or allocated. The changes of one batch
        // share one set of changed keys: checked once.
        var checked: (keys: Set<String>, disjoint: Bool)?
        for change in changeSet.changes where change.id.entity == entity {
            guard change.before != nil, change.after != nil else { return nil }
            if checked?.keys != change.changedKeys {
                checked = (change.changedKeys, change.changedKeys.isDisjoint(with: read))
            }
            guard checked!.disjoint else { return nil }
        }
        // Locals: the stored existentials would be copied for every change.
        let (ordering, filter) = (self.ordering, self.filter)
        let results = self.results
        let rows = results.rows
        let view: any ObjectView = source
        let walk = Self.locatesByWalk(changeSet.changes.count, in: rows.count)
        // One pass over the changes (each object's values touched once): the key, which is
        // the same before and after, whether it matches, and (without a walk) its rank.
        var picked: [Int] = []
        var keys: [SortKey] = []
        var matches: [Bool] = []
        var ranks: [Int] = []
        picked.reserveCapacity(changeSet.changes.count)
        keys.reserveCapacity(changeSet.changes.count)
        matches.reserveCapacity(changeSet.changes.count)
        ranks.reserveCapacity(changeSet.changes.count)
        var scratch = borrowScratchKey(width: rows.width)
        defer { returnScratchKey(scratch) }
        for (i, change) in changeSet.changes.enumerated() where change.id.entity == entity {
            guard let before = change.before, let after = change.after else { return nil }
            // No key differs: nothing changed (compared only then).
            if change.changedKeys.isEmpty && before == after { continue }
            let key = ordering.key(of: change.id, after, in: view)
            picked.append(i)
            matches.append(filter.matches(change.id, after, in: view))
            ranks.append(walk ? -1 : rows.find(key, id: change.id.number, scratch: &scratch) ?? -1)
            keys.append(key)
        }
        guard !picked.isEmpty else { return nil }
        var order: [Int] = []
        if walk {
            // One pass over the tree finds them all, in rank order; a row held at another
            // key than its values give means the tree disagrees.
            let lookup = IDLookup(picked.map { changeSet.changes[$0].id.number }, rows: rows.count)
            var agrees = true
            let compare = rows.compare
            order.reserveCapacity(picked.count)
            rows.forEachHeld(lookup) { j, rank, leaf, slot in
                leaf.load(slot, into: &scratch)
                if compare(scratch, keys[j]) != 0 { agrees = false }
                ranks[j] = rank
                order.append(j)
            }
            guard agrees else { return nil }
        } else {
            order = picked.indices.filter { ranks[$0] >= 0 }.sorted { ranks[$0] < ranks[$1] }
        }
        // Held exactly when it matches (before and after alike: the filter reads no changed key).
        for j in picked.indices where matches[j] != (ranks[j] >= 0) { return nil }
        lastCycleRebuilt = false
        let firstSection = results.firstVisibleSectionRank()
        var starts: [String: Int] = [:]
        var events: [ControllerEvent] = [.willChangeContent]
        events.reserveCapacity(order.count + 2)
        for j in order {
            guard
                let path = results.indexPath(
                    rank: ranks[j], key: keys[j], firstSection: firstSection,
                    sectionStart: { cachedStart(&starts, $0, in: results) })
            else { continue }
            events.append(.object(.update, changeSet.changes[picked[j]].id, indexPath: path, newIndexPath: path))
        }
        guard events.count > 1 else { return [] }
        events.append(.didChangeContent)
        return events
    }

    /// A cycle that only deletes (`removesOnly`, which the caller decided), without a
    /// fetchOffset/fetchLimit window:
    /// the rows held at their old keys are found in one walk in rank order, which is the
    /// order `deletions` reads the old sections in, then removed from the highest rank down.
    /// A row held at another key is left alone, as the general path leaves a row its old
    /// key does not find. Nil for any other cycle.
    func applyRemovals(_ changeSet: ChangeSet) -> [ControllerEvent]? {
        guard results.offset == 0, results.limit == Int.max else { return nil }
        let view: any ObjectView = source
        // Locals: the stored existentials would be copied for every change.
        let (entity, ordering) = (self.entity, self.ordering)
        var numbers: [Int64] = []
        var keys: [SortKey] = []
        numbers.reserveCapacity(changeSet.changes.count)
        keys.reserveCapacity(changeSet.changes.count)
        for change in changeSet.changes where change.id.entity == entity {
            guard let before = change.before else { continue }
            numbers.append(change.id.number)
            keys.append(ordering.key(of: change.id, before, in: view))
        }
        var dropped: [(rank: Int, number: Int64)] = []
        var scratch = SortKey(repeating: .null, count: results.rows.width)
        var droppedKeys: [Int] = []
        if Self.locatesByWalk(numbers.count, in: results.count) {
            let lookup = IDLookup(numbers, rows: results.count)
            let compare = results.rows.compare
            results.rows.forEachHeld(lookup) { j, rank, leaf, slot in
                leaf.load(slot, into: &scratch)
                guard compare(scratch, keys[j]) == 0 else { return }
                dropped.append((rank, numbers[j]))
                droppedKeys.append(j)
            }
        } else {
            var found: [(rank: Int, number: Int64, key: Int)] = []
            for j in numbers.indices {
                if let rank = results.rows.find(keys[j], id: numbers[j], scratch: &scratch) {
                    found.append((rank, numbers[j], j))
                }
            }
            found.sort { $0.rank < $1.rank }
            dropped = found.map { ($0.rank, $0.number) }
            droppedKeys = found.map(\.key)
        }
        lastCycleRebuilt = false
        let events = deletions(dropped)
        var results = self.results
        defer { self.results = results }
        for d in stride(from: dropped.count - 1, through: 0, by: -1) {
            results.remove(at: dropped[d].rank, key: keys[droppedKeys[d]])
        }
        return events
    }

    /// Whether `k` rows are found in a tree of `n` rows faster by one walk over it (a few
    /// nanoseconds a row) than by one search each (tens of key comparisons).
    static func locatesByWalk(_ k: Int, in n: Int) -> Bool {
        k > 64 && k * 64 >= n
    }
}
