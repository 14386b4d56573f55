import Model

/// A node's entries as struct-of-arrays: id numbers and one compact column per key
/// component. No per-row object exists anywhere in the tree.
///
/// The first column is held inline (not in the array of the others): a search reads it in
/// every node it passes, and one pointer fewer to follow is one cache miss fewer per node.
struct Entries {
    private(set) var ids: [Int64] = []
    private var first = KeyColumn()
    private var rest: [KeyColumn]
    let width: Int

    init(width: Int, capacity: Int) {
        self.width = width
        rest = width > 1 ? Array(repeating: KeyColumn(), count: width - 1) : []
        reserve(capacity)
    }

    private init(ids: [Int64], first: KeyColumn, rest: [KeyColumn], width: Int) {
        self.ids = ids
        self.first = first
        self.rest = rest
        self.width = width
    }

    var count: Int { ids.count }

    func key(at i: Int) -> SortKey {
        var k: SortKey = []
        k.reserveCapacity(width)
        if width > 0 { k.append(first.value(at: i)) }
        for c in rest { k.append(c.value(at: i)) }
        return k
    }

    /// Entry `i`'s first component while that column holds only integers; nil otherwise.
    @inline(__always)
    func firstInteger(at i: Int) -> Int64? { first.integer(at: i) }

    /// Writes entry `i`'s key into `key` (which has `width` components) in place, so a
    /// search reuses one buffer instead of allocating a key per comparison.
    @inline(__always)
    func load(_ i: Int, into key: inout SortKey) {
        guard width > 0 else { return }
        key[0] = first.value(at: i)
        guard width > 1 else { return }
        // Through the buffer: an array's element read copies the column (two retains).
        rest.withUnsafeBufferPointer { rest in
            for c in rest.indices { key[c + 1] = rest[c].value(at: i) }
        }
    }

    mutating func insert(_ key: SortKey, _ id: Int64, at i: Int) {
        precondition(key.count == width, "sort key width \(key.count) != \(width)")
        ids.insert(id, at: i)
        guard width > 0 else { return }
        first.insert(key[0], at: i)
        for c in rest.indices { rest[c].insert(key[c + 1], at: i) }
    }

    mutating func append(_ key: SortKey, _ id: Int64) {
        precondition(key.count == width, "sort key width \(key.count) != \(width)")
        ids.append(id)
        guard width > 0 else { return }
        first.append(key[0])
        for c in rest.indices { rest[c].append(key[c + 1]) }
    }

    mutating func remove(at i: Int) {
        ids.remove(at: i)
        guard width > 0 else { return }
        first.remove(at: i)
        for c in rest.indices { rest[c].remove(at: i) }
    }

    /// Moves entries `start...` into a new value (a node split).
    mutating func split(at start: Int, reserving capacity: Int) -> Entries {
        var rightIDs = Array(ids[start...])
        rightIDs.reserveCapacity(capacity)
        ids.removeSubrange(start...)
        var rightFirst = KeyColumn()
        if width > 0 {
            rightFirst = first.split(at: start)
            rightFirst.reserve(capacity)
        }
        var rightRest: [KeyColumn] = []
        for c in rest.indices {
            var column = rest[c].split(at: start)
            column.reserve(capacity)
            rightRest.append(column)
        }
        return Entries(ids: rightIDs, first: rightFirst, rest: rightRest, width: width)
    }

    mutating func append(contentsOf other: Entries) {
        ids.append(contentsOf: other.ids)
        guard width > 0 else { return }
        first.append(contentsOf: other.first)
        for c in rest.indices { rest[c].append(contentsOf: other.rest[c]) }
    }

    mutating func reserve(_ n: Int) {
        ids.reserveCapacity(n)
        guard width > 0 else { return }
        first.reserve(n)
        for c in rest.indices { rest[c].reserve(n) }
    }

    var footprint: Int { ids.capacity * 8 + (width > 0 ? first.footprint : 0) + rest.reduce(0) { $0 + $1.footprint } }
}
