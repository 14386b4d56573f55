import Model

/// A node's entries as struct-of-arrays: id numbers and one compact column per key
/// component. No per-row object exists anywhere in the tree.
struct Entries {
    private(set) var ids: [Int64] = []
    private var columns: [KeyColumn]

    init(width: Int, capacity: Int) {
        columns = Array(repeating: KeyColumn(), count: width)
        reserve(capacity)
    }

    private init(ids: [Int64], columns: [KeyColumn]) {
        self.ids = ids
        self.columns = columns
    }

    var count: Int { ids.count }
    var width: Int { columns.count }

    func key(at i: Int) -> SortKey {
        var k: SortKey = []
        k.reserveCapacity(columns.count)
        for c in columns { k.append(c.value(at: i)) }
        return k
    }

    /// Writes entry `i`'s key into `key` (which has `width` components) in place, so a
    /// search reuses one buffer instead of allocating a key per comparison.
    @inline(__always)
    func load(_ i: Int, into key: inout SortKey) {
        // Through the buffer: an array's element read copies the column (two retains).
        columns.withUnsafeBufferPointer { columns in
            for c in columns.indices { key[c] = columns[c].value(at: i) }
        }
    }

    mutating func insert(_ key: SortKey, _ id: Int64, at i: Int) {
        precondition(key.count == columns.count, "sort key width \(key.count) != \(columns.count)")
        ids.insert(id, at: i)
        for c in columns.indices { columns[c].insert(key[c], at: i) }
    }

    mutating func append(_ key: SortKey, _ id: Int64) {
        precondition(key.count == columns.count, "sort key width \(key.count) != \(columns.count)")
        ids.append(id)
        for c in columns.indices { columns[c].append(key[c]) }
    }

    mutating func remove(at i: Int) {
        ids.remove(at: i)
        for c in columns.indices { columns[c].remove(at: i) }
    }

    /// Moves entries `start...` into a new value (a node split).
    mutating func split(at start: Int, reserving capacity: Int) -> Entries {
        var rightIDs = Array(ids[start...])
        rightIDs.reserveCapacity(capacity)
        ids.removeSubrange(start...)
        var rightColumns: [KeyColumn] = []
        for c in columns.indices {
            var column = columns[c].split(at: start)
            column.reserve(capacity)
            rightColumns.append(column)
        }
        return Entries(ids: rightIDs, columns: rightColumns)
    }

    mutating func append(contentsOf other: Entries) {
        ids.append(contentsOf: other.ids)
        for c in columns.indices { columns[c].append(contentsOf: other.columns[c]) }
    }

    mutating func reserve(_ n: Int) {
        ids.reserveCapacity(n)
        for c in columns.indices { columns[c].reserve(n) }
    }

    var footprint: Int { ids.capacity * 8 + columns.reduce(0) { $0 + $1.footprint } }
}
