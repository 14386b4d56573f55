import Model
import Testing

@testable import Controllers

/// The tree against a sorted array, over thousands of random operations, with small node
/// capacities (every split, merge and root change happens often) and the default ones.
@Suite struct CountedBTreeTests {
    typealias Entry = (key: SortKey, id: Int64)
    static let ascending = [true, false]

    static func less(_ a: Entry, _ b: Entry) -> Bool {
        let c = compareKeys(a.key, b.key, ascending: ascending)
        return c != 0 ? c < 0 : a.id < b.id
    }

    static func makeTree(leaf: Int, inner: Int) -> CountedBTree {
        CountedBTree(keyWidth: 2, leafCapacity: leaf, innerCapacity: inner) {
            compareKeys($0, $1, ascending: ascending)
        }
    }

    /// Mostly integer keys with many ties; sometimes another type, so columns go mixed.
    static func randomKey(_ rng: inout SeededRandom) -> SortKey {
        let first: Value = rng.chance(0.05) ? .string("s\(rng.int(0..<5))") : .integer(Int64(rng.int(0..<20)))
        let second: Value = rng.chance(0.1) ? .null : .date(Double(rng.int(0..<50)))
        return [first, second]
    }

    static func same(_ a: SortKey, _ b: SortKey) -> Bool { compareKeys(a, b, ascending: ascending) == 0 }

    @Test(arguments: [(4, 4, UInt64(1)), (5, 6, 2), (128, 64, 3), (8, 4, 4)])
    func matchesSortedArray(leaf: Int, inner: Int, seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var tree = Self.makeTree(leaf: leaf, inner: inner)
        var model: [Entry] = []
        var nextID: Int64 = 1
        let ops = iterations(default: 6000)
        for step in 0..<ops {
            let op = rng.int(0..<100)
            if op < 45 || model.isEmpty {
                let e = (Self.randomKey(&rng), nextID)
                nextID += 1
                let r = tree.insert(e.0, id: e.1)
                let expected = model.firstIndex { Self.less(e, $0) } ?? model.count
                #expect(r == expected, "insert rank at step \(step)")
                model.insert(e, at: expected)
            } else if op < 70 {
                let i = rng.int(0..<model.count)
                let e = model[i]
                #expect(tree.remove(e.key, id: e.id) == i, "remove rank at step \(step)")
                model.remove(at: i)
            } else if op < 85 {
                let i = rng.int(0..<model.count)
                tree.remove(at: i)
                model.remove(at: i)
            } else if op < 90 {
                // Absent entries: same key, other id; or unknown key.
                let probe = (Self.randomKey(&rng), nextID + 7)
                #expect(tree.remove(probe.0, id: probe.1) == nil)
                #expect(tree.find(probe.0, id: probe.1) == nil)
            } else if op < 95 {
                let probe = (Self.randomKey(&rng), Int64(rng.int(0..<Int(nextID + 1))))
                let expected = model.firstIndex { !Self.less($0, probe) } ?? model.count
                #expect(tree.rank(of: probe.0, id: probe.1) == expected)
            } else {
                // Occasionally rebuild from the sorted array, as performFetch does.
                if rng.chance(0.1) { tree.bulkLoad(model.map { ($0.key, $0.id) }) }
            }
            #expect(tree.count == model.count)
            if step % 97 == 0 || ops - step < 3 { try Self.checkEverything(tree, model, &rng) }
        }
        // Drain to empty: the root collapses back to a leaf.
        while let e = model.popLast() { #expect(tree.remove(e.key, id: e.id) == model.count) }
        #expect(tree.count == 0 && tree.root.isLeaf)
    }

    static func checkEverything(_ tree: CountedBTree, _ model: [Entry], _ rng: inout SeededRandom) throws {
        #expect(checkInvariants(tree) == [])
        var all: [Entry] = []
        tree.forEach(in: 0..<tree.count) { all.append(($0, $1)) }
        #expect(all.map(\.id) == model.map(\.id))
        #expect(zip(all, model).allSatisfy { same($0.key, $1.key) })
        for _ in 0..<min(20, model.count) {
            let r = rng.int(0..<model.count)
            let s = tree.select(r)
            #expect(s.id == model[r].id && same(s.key, model[r].key))
            #expect(tree.find(model[r].key, id: model[r].id) == r)
            let lo = rng.int(0..<model.count)
            let hi = min(model.count, lo + rng.int(0..<40))
            #expect(tree.ids(in: lo..<hi) == model[lo..<hi].map(\.id))
        }
    }

    @Test func bulkLoadBuildsBalancedTree() {
        var tree = Self.makeTree(leaf: 16, inner: 8)
        let entries: [(SortKey, Int64)] = (0..<5000).map { ([.integer(Int64($0 / 3)), .date(0)], Int64($0)) }
        tree.bulkLoad(entries)
        #expect(tree.count == 5000)
        #expect(checkInvariants(tree) == [])
        #expect(tree.ids(in: 1234..<1240) == Array(1234..<1240))
        #expect(tree.rank(of: [.integer(500), .date(0)], id: 0) == 1500)
        tree.bulkLoad([])
        #expect(tree.count == 0 && tree.ids(in: 0..<10) == [])
    }

    @Test func integerKeysStayCompact() {
        var tree = CountedBTree(keyWidth: 1) { compareKeys($0, $1, ascending: [true]) }
        tree.bulkLoad((0..<100_000).lazy.map { ([.integer(Int64($0))], Int64($0 + 1)) })
        let perRow = Double(tree.footprint) / 100_000
        #expect(perRow < 20, "bytes per row \(perRow)")
    }

    @Test func firstRankFindsBoundariesOfARun() {
        var tree = Self.makeTree(leaf: 4, inner: 4)
        for i in 0..<200 { tree.insert([.integer(Int64(i % 10)), .null], id: Int64(i)) }
        // Entries whose first component is 7 (ascending) sit at ranks 140..<160.
        let start = tree.firstRank { k, _ in compareValues(k[0], .integer(7)) >= 0 }
        let end = tree.firstRank { k, _ in compareValues(k[0], .integer(7)) > 0 }
        #expect(start == 140 && end == 160)
    }
}

/// Structural checks: counts, order within and across nodes, separator bounds, leaf depth.
func checkInvariants(_ tree: CountedBTree) -> [String] {
    var problems: [String] = []
    var leafDepth: Int?
    var previous: (SortKey, Int64)?
    func entryOrder(_ a: (SortKey, Int64), _ b: (SortKey, Int64)) -> Int {
        let c = tree.compare(a.0, b.0)
        return c != 0 ? c : (a.1 < b.1 ? -1 : (a.1 > b.1 ? 1 : 0))
    }
    // Returns the subtree's entry count; `low`/`high` bound its entries ([low, high)).
    func walk(_ node: CountedBTree.Node, depth: Int, low: (SortKey, Int64)?, high: (SortKey, Int64)?) -> Int {
        if node.isLeaf {
            if let d = leafDepth, d != depth { problems.append("leaves at depths \(d) and \(depth)") }
            leafDepth = depth
            for i in 0..<node.entries.count {
                let e = (node.entries.key(at: i), node.entries.ids[i])
                if let p = previous, entryOrder(p, e) >= 0 { problems.append("order broken at id \(e.1)") }
                if let l = low, entryOrder(l, e) > 0 { problems.append("id \(e.1) below its separator") }
                if let h = high, entryOrder(e, h) >= 0 { problems.append("id \(e.1) above next separator") }
                previous = e
            }
            if node.entries.count > tree.leafCapacity { problems.append("leaf over capacity") }
            return node.entries.count
        }
        if node.children.count != node.counts.count || node.children.count != node.entries.count {
            problems.append("inner node arrays disagree")
            return 0
        }
        if node.children.isEmpty || node.children.count > tree.innerCapacity {
            problems.append("inner size \(node.children.count)")
        }
        var total = 0
        for c in node.children.indices {
            let lo = c == 0 ? low : (node.entries.key(at: c), node.entries.ids[c])
            let hi = c + 1 < node.children.count ? (node.entries.key(at: c + 1), node.entries.ids[c + 1]) : high
            let n = walk(node.children[c], depth: depth + 1, low: lo, high: hi)
            if n != node.counts[c] { problems.append("count \(node.counts[c]) != \(n)") }
            total += n
        }
        return total
    }
    let n = walk(tree.root, depth: 0, low: nil, high: nil)
    if n != tree.count { problems.append("tree count \(tree.count) != \(n)") }
    return problems
}
