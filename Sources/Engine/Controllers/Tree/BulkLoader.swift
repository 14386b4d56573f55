import Model

/// Builds a `CountedBTree` from entries handed over one at a time, filling leaves left to
/// right and then the inner levels: a fetch streams its rows straight into the leaves, with
/// no array of the whole match set and nothing allocated per row.
///
/// The entries should arrive in the tree's order; the loader checks each against the one
/// before it, and `finish` sorts them when some did not.
struct BulkLoader {
    private let width: Int
    private let leafCapacity: Int
    /// Entries per loaded leaf: 7/8 of the capacity, so the inserts of later change cycles
    /// land in leaves with room instead of splitting nearly every full leaf they touch
    /// (about 2 bytes per row more).
    private let leafFill: Int
    private let innerCapacity: Int
    private let compare: CountedBTree.Compare
    private let integersFirst: Bool?
    private var leaves: [CountedBTree.Node] = []
    private var current: Entries
    /// The previous entry, copied component by component into one buffer.
    private var previous: SortKey
    private var previousID: Int64 = 0
    private(set) var count = 0
    private(set) var inOrder = true

    /// A loader for a tree shaped like `tree` (same key width, capacities and order).
    init(like tree: CountedBTree) {
        width = tree.width
        leafCapacity = tree.leafCapacity
        leafFill = Swift.max(1, tree.leafCapacity - tree.leafCapacity / 8)
        innerCapacity = tree.innerCapacity
        compare = tree.compare
        integersFirst = tree.integersFirst
        current = Entries(width: width, capacity: leafCapacity)
        previous = SortKey(repeating: .null, count: width)
    }

    mutating func append(_ key: SortKey, _ id: Int64) {
        if count > 0 && inOrder {
            let c = compare(previous, key)
            if c > 0 || (c == 0 && previousID >= id) { inOrder = false }
        }
        for c in 0..<width { previous[c] = key[c] }
        previousID = id
        if current.count == leafFill {
            leaves.append(CountedBTree.Node(entries: current))
            current = Entries(width: width, capacity: leafCapacity)
        }
        current.append(key, id)
        count += 1
    }

    /// The tree of every entry appended, in order.
    consuming func finish() -> CountedBTree {
        leaves.append(CountedBTree.Node(entries: current))
        var tree = CountedBTree(
            keyWidth: width, leafCapacity: leafCapacity, innerCapacity: innerCapacity, integersFirst: integersFirst,
            compare: compare)
        if !inOrder {
            // Rare (a source that breaks its promise): sort the entries and load them again.
            var all: [(SortKey, Int64)] = []
            all.reserveCapacity(count)
            for leaf in leaves {
                for i in 0..<leaf.entries.count { all.append((leaf.entries.key(at: i), leaf.entries.ids[i])) }
            }
            let compare = self.compare
            all.sort { a, b in
                let c = compare(a.0, b.0)
                return c != 0 ? c < 0 : a.1 < b.1
            }
            tree.bulkLoad(all)
            return tree
        }
        var level = leaves
        while level.count > 1 {
            var parents: [CountedBTree.Node] = []
            parents.reserveCapacity(level.count / innerCapacity + 1)
            var start = 0
            while start < level.count {
                let end = Swift.min(level.count, start + innerCapacity)
                var seps = Entries(width: width, capacity: innerCapacity)
                for child in level[start..<end] { seps.append(child.entries.key(at: 0), child.entries.ids[0]) }
                let parent = CountedBTree.Node(entries: seps)
                parent.children = Array(level[start..<end])
                parent.counts = parent.children.map(\.total)
                parents.append(parent)
                start = end
            }
            level = parents
        }
        tree.adopt(root: level[0], count: count)
        return tree
    }
}
