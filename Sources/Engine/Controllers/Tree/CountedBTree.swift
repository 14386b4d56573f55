import Model

/// An order-statistic B+tree of `(SortKey, id number)` entries, ordered by a key
/// comparison and then by id number, so no two entries tie.
///
/// Leaves hold the entries; an inner node holds its children, each child's entry count
/// (so rank and select are O(log n)) and a separator per child: a lower bound of the
/// child's entries that is greater than every entry of the previous child. Separators may
/// go stale after removals (they stay valid bounds), so removals never rewrite ancestors.
///
/// The tree is used by one controller on one thread; nodes are classes mutated in place.
struct CountedBTree {
    final class Node {
        /// Leaf: the entries. Inner: one separator per child (the first is never read).
        var entries: Entries
        /// Empty in a leaf.
        var children: [Node] = []
        var counts: [Int] = []

        init(entries: Entries) { self.entries = entries }
        var isLeaf: Bool { children.isEmpty }
        var total: Int { isLeaf ? entries.count : counts.reduce(0, +) }
    }

    /// Three-way comparison of two keys (the id tie-break is the tree's).
    typealias Compare = (SortKey, SortKey) -> Int

    let width: Int
    let leafCapacity: Int
    let innerCapacity: Int
    let compare: Compare
    /// Set when `compare` orders two different integers in the first component as numbers,
    /// ascending or not (`ObjectOrdering.keyComparison`): a search then settles most entries
    /// from the leaf's integer column, without loading the entry's key or calling `compare`.
    let integersFirst: Bool?
    private(set) var root: Node
    private(set) var count = 0

    init(
        keyWidth: Int, leafCapacity: Int = 256, innerCapacity: Int = 128, integersFirst: Bool? = nil,
        compare: @escaping Compare
    ) {
        precondition(leafCapacity >= 4 && innerCapacity >= 4)
        self.width = keyWidth
        self.leafCapacity = leafCapacity
        self.innerCapacity = innerCapacity
        self.integersFirst = keyWidth > 0 ? integersFirst : nil
        self.compare = compare
        self.root = Node(entries: Entries(width: keyWidth, capacity: leafCapacity))
    }

    /// Sign of entry `i` of `node` against `(key, id)`.
    @inline(__always)
    func order(_ entries: Entries, _ i: Int, _ key: SortKey, _ id: Int64, _ scratch: inout SortKey) -> Int {
        if let ascending = integersFirst, case .integer(let k) = key[0], let e = entries.firstInteger(at: i), e != k {
            return (e < k) == ascending ? -1 : 1
        }
        entries.load(i, into: &scratch)
        let c = compare(scratch, key)
        if c != 0 { return c }
        let e = entries.ids[i]
        return e < id ? -1 : (e > id ? 1 : 0)
    }

    // MARK: Search

    /// The number of entries for which `isAfter` is false; `isAfter` must be false for a
    /// prefix of the order and true for the rest (over every key, not only stored ones).
    func firstRank(where isAfter: (SortKey, Int64) -> Bool) -> Int {
        var node = root
        var base = 0
        var scratch = SortKey(repeating: .null, count: width)
        while !node.isLeaf {
            let c = childIndex(node, &scratch, isAfter)
            for j in 0..<c { base += node.counts[j] }
            node = node.children[c]
        }
        // A local copy of the node's entries: reads through the class reference would
        // retain and release the buffers on every comparison.
        let entries = node.entries
        var lo = 0
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            entries.load(mid, into: &scratch)
            if isAfter(scratch, entries.ids[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return base + lo
    }

    /// The child that holds the boundary: the one before the first separator (from the
    /// second on) that is after it.
    private func childIndex(_ node: Node, _ scratch: inout SortKey, _ isAfter: (SortKey, Int64) -> Bool) -> Int {
        let entries = node.entries
        var lo = 1
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            entries.load(mid, into: &scratch)
            if isAfter(scratch, entries.ids[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo - 1
    }

    /// `childIndex` for a probe entry: the child whose range holds `(key, id)`.
    private func childIndex(_ node: Node, _ key: SortKey, _ id: Int64, _ scratch: inout SortKey) -> Int {
        let entries = node.entries
        var lo = 1
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order(entries, mid, key, id, &scratch) > 0 { hi = mid } else { lo = mid + 1 }
        }
        return lo - 1
    }

    /// Entries ordered before `(key, id)`.
    func rank(of key: SortKey, id: Int64) -> Int {
        firstRank { k, i in
            let c = compare(k, key)
            return c != 0 ? c > 0 : i >= id
        }
    }

    /// The rank of the entry equal to `(key, id)`, nil when absent.
    func find(_ key: SortKey, id: Int64) -> Int? {
        var scratch = SortKey(repeating: .null, count: width)
        return find(key, id: id, scratch: &scratch)
    }

    /// `find` with a caller's key buffer (`width` components), for callers searching many
    /// times in a row: one buffer for all, not one allocation per search.
    func find(_ key: SortKey, id: Int64, scratch: inout SortKey) -> Int? {
        // One descent to the only leaf that can hold it, summing counts on the way.
        var node = root
        var base = 0
        while !node.isLeaf {
            let c = childIndex(node, key, id, &scratch)
            for j in 0..<c { base += node.counts[j] }
            node = node.children[c]
        }
        let entries = node.entries
        var lo = 0
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order(entries, mid, key, id, &scratch) >= 0 { hi = mid } else { lo = mid + 1 }
        }
        guard lo < entries.count, order(entries, lo, key, id, &scratch) == 0 else { return nil }
        return base + lo
    }

    func select(_ rank: Int) -> (key: SortKey, id: Int64) {
        let (node, i) = locate(rank)
        return (node.entries.key(at: i), node.entries.ids[i])
    }

    func id(at rank: Int) -> Int64 {
        let (node, i) = locate(rank)
        return node.entries.ids[i]
    }

    private func locate(_ rank: Int) -> (Node, Int) {
        precondition(rank >= 0 && rank < count, "rank \(rank) out of 0..<\(count)")
        var node = root
        var r = rank
        while !node.isLeaf {
            var c = 0
            while r >= node.counts[c] {
                r -= node.counts[c]
                c += 1
            }
            node = node.children[c]
        }
        return (node, r)
    }

    /// Calls `body` for the entries at `ranks`, in order.
    func forEach(in ranks: Range<Int>, _ body: (SortKey, Int64) -> Void) {
        let lo = Swift.max(0, ranks.lowerBound)
        let hi = Swift.min(count, ranks.upperBound)
        guard lo < hi else { return }
        visit(root, lo, hi) { entries, slots in
            for i in slots { body(entries.key(at: i), entries.ids[i]) }
        }
    }

    /// Calls `body` with each leaf holding ranks `lo..<hi` of `node`, and the slots of it
    /// that do, in order.
    private func visit(_ node: Node, _ lo: Int, _ hi: Int, _ body: (Entries, Range<Int>) -> Void) {
        if node.isLeaf {
            body(node.entries, lo..<hi)
            return
        }
        var start = 0
        for c in node.children.indices {
            let end = start + node.counts[c]
            if end > lo && start < hi {
                visit(node.children[c], Swift.max(lo, start) - start, Swift.min(hi, end) - start, body)
            }
            if end >= hi { return }
            start = end
        }
    }

    /// Calls `body` with every leaf's entries, in order, and the rank of its first entry.
    func forEachLeaf(_ body: (Entries, Int) -> Void) {
        var rank = 0
        func walk(_ node: Node) {
            if node.isLeaf {
                body(node.entries, rank)
                rank += node.entries.count
            } else {
                for child in node.children { walk(child) }
            }
        }
        walk(root)
    }

    /// Ids of the entries at `ranks`, in order.
    func ids(in ranks: Range<Int>) -> [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(Swift.max(0, Swift.min(count, ranks.upperBound) - Swift.max(0, ranks.lowerBound)))
        // Leaf by leaf, no key read: a million-row fill lists its ids without a key each.
        let lo = Swift.max(0, ranks.lowerBound)
        let hi = Swift.min(count, ranks.upperBound)
        guard lo < hi else { return out }
        visit(root, lo, hi) { entries, slots in out.append(contentsOf: entries.ids[slots]) }
        return out
    }

    // MARK: Mutation

    /// Inserts `(key, id)` (which must be absent) and returns its rank.
    @discardableResult
    mutating func insert(_ key: SortKey, id: Int64) -> Int {
        var scratch = SortKey(repeating: .null, count: width)
        return insert(key, id: id, scratch: &scratch)
    }

    /// `insert` with a caller's key buffer (see `find(_:id:scratch:)`).
    @discardableResult
    mutating func insert(_ key: SortKey, id: Int64, scratch: inout SortKey) -> Int {
        let (rank, split) = insert(into: root, key, id, &scratch)
        if let (sepKey, sepID, right) = split {
            var seps = Entries(width: width, capacity: innerCapacity)
            seps.append(key, 0) // never read
            seps.append(sepKey, sepID)
            let newRoot = Node(entries: seps)
            newRoot.children = [root, right]
            newRoot.counts = [root.total, right.total]
            root = newRoot
        }
        count += 1
        return rank
    }

    private func insert(into node: Node, _ key: SortKey, _ id: Int64, _ scratch: inout SortKey)
        -> (Int, (SortKey, Int64, Node)?)
    {
        if node.isLeaf {
            var lo = 0
            var hi = node.entries.count
            do {
                let entries = node.entries
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if order(entries, mid, key, id, &scratch) > 0 { hi = mid } else { lo = mid + 1 }
                }
            }
            guard node.entries.count == leafCapacity else {
                node.entries.insert(key, id, at: lo)
                return (lo, nil)
            }
            // Split before inserting so a leaf's buffers never grow past their capacity.
            let half = leafCapacity / 2
            let right = Node(entries: node.entries.split(at: half, reserving: leafCapacity))
            if lo >= half { right.entries.insert(key, id, at: lo - half) } else { node.entries.insert(key, id, at: lo) }
            return (lo, (right.entries.key(at: 0), right.entries.ids[0], right))
        }
        let c = childIndex(node, key, id, &scratch)
        var base = 0
        for j in 0..<c { base += node.counts[j] }
        let (r, split) = insert(into: node.children[c], key, id, &scratch)
        node.counts[c] += 1
        if let (sepKey, sepID, right) = split {
            let moved = right.total
            node.counts[c] -= moved
            node.children.insert(right, at: c + 1)
            node.counts.insert(moved, at: c + 1)
            node.entries.insert(sepKey, sepID, at: c + 1)
        }
        guard node.children.count > innerCapacity else { return (base + r, nil) }
        let half = node.children.count / 2
        let right = Node(entries: node.entries.split(at: half, reserving: innerCapacity))
        right.children = Array(node.children[half...])
        right.counts = Array(node.counts[half...])
        node.children.removeSubrange(half...)
        node.counts.removeSubrange(half...)
        return (base + r, (right.entries.key(at: 0), right.entries.ids[0], right))
    }

    /// Removes `(key, id)`; returns the rank it had, nil when it was absent.
    @discardableResult
    mutating func remove(_ key: SortKey, id: Int64) -> Int? {
        var scratch = SortKey(repeating: .null, count: width)
        guard let r = remove(from: root, key, id, &scratch) else { return nil }
        count -= 1
        while !root.isLeaf && root.children.count == 1 { root = root.children[0] }
        return r
    }

    private func remove(from node: Node, _ key: SortKey, _ id: Int64, _ scratch: inout SortKey) -> Int? {
        if node.isLeaf {
            var lo = 0
            var hi = node.entries.count
            do {
                let entries = node.entries
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if order(entries, mid, key, id, &scratch) >= 0 { hi = mid } else { lo = mid + 1 }
                }
                guard lo < entries.count, order(entries, lo, key, id, &scratch) == 0 else { return nil }
            }
            node.entries.remove(at: lo)
            return lo
        }
        let c = childIndex(node, key, id, &scratch)
        guard let r = remove(from: node.children[c], key, id, &scratch) else { return nil }
        var base = 0
        for j in 0..<c { base += node.counts[j] }
        node.counts[c] -= 1
        rebalance(node, c)
        return base + r
    }

    /// Removes the entry at `rank`, found by counts alone (no key comparison). Removing
    /// several entries from the highest rank down keeps the lower ranks valid.
    mutating func remove(at rank: Int) {
        precondition(rank >= 0 && rank < count, "rank \(rank) out of 0..<\(count)")
        remove(from: root, at: rank)
        count -= 1
        while !root.isLeaf && root.children.count == 1 { root = root.children[0] }
    }

    private func remove(from node: Node, at rank: Int) {
        if node.isLeaf {
            node.entries.remove(at: rank)
            return
        }
        var r = rank
        var c = 0
        while r >= node.counts[c] {
            r -= node.counts[c]
            c += 1
        }
        remove(from: node.children[c], at: r)
        node.counts[c] -= 1
        rebalance(node, c)
    }

    /// Merges child `c` with a neighbour when together they fit in one node, and drops it
    /// when empty; underfull nodes that cannot merge are left as they are.
    private func rebalance(_ node: Node, _ c: Int) {
        let child = node.children[c]
        let size = child.isLeaf ? child.entries.count : child.children.count
        let capacity = child.isLeaf ? leafCapacity : innerCapacity
        guard size < capacity / 4 else { return }
        if size == 0 {
            node.children.remove(at: c)
            node.counts.remove(at: c)
            node.entries.remove(at: c)
            return
        }
        for (l, r) in [(c - 1, c), (c, c + 1)] where l >= 0 && r < node.children.count {
            let left = node.children[l]
            let right = node.children[r]
            let sizes =
                left.isLeaf
                ? left.entries.count + right.entries.count
                : left.children.count + right.children.count
            guard sizes <= capacity * 3 / 4 else { continue }
            if left.isLeaf {
                left.entries.append(contentsOf: right.entries)
            } else {
                // The parent's separator bounds the right node's first child.
                var seps = Entries(width: width, capacity: 0)
                seps.append(node.entries.key(at: r), node.entries.ids[r])
                var rest = right.entries
                rest.remove(at: 0)
                seps.append(contentsOf: rest)
                left.entries.append(contentsOf: seps)
                left.children.append(contentsOf: right.children)
                left.counts.append(contentsOf: right.counts)
            }
            node.counts[l] += node.counts[r]
            node.children.remove(at: r)
            node.counts.remove(at: r)
            node.entries.remove(at: r)
            return
        }
    }

    /// Replaces the contents with `sorted` (ascending by key then id), in O(n): leaves are
    /// filled left to right, then each level of inner nodes above them (`BulkLoader`).
    mutating func bulkLoad<S: Sequence>(_ sorted: S) where S.Element == (SortKey, Int64) {
        var loader = BulkLoader(like: self)
        for (key, id) in sorted { loader.append(key, id) }
        self = loader.finish()
    }

    /// Takes over a tree `BulkLoader` built.
    mutating func adopt(root: Node, count: Int) {
        self.root = root
        self.count = count
    }

    /// Bytes held by node buffers and node objects (an estimate of the heap it uses).
    var footprint: Int {
        func walk(_ node: Node) -> Int {
            let own = 48 + node.entries.footprint + node.children.capacity * 8 + node.counts.capacity * 8 + 4 * 32
            return own + node.children.reduce(0) { $0 + walk($1) }
        }
        return walk(root)
    }
}
