/// Position of an id number in a list, for walks over every row: a flat table when the
/// numbers are dense enough (the usual case: they are row ids), a dictionary otherwise.
struct IDLookup {
    private var table: [Int32] = []
    /// One bit per table slot, set for the numbers held: a walk asks about every row, most
    /// of them absent, and this fits in cache where the table (four bytes a slot) does not.
    private var present: [UInt64] = []
    private var map: [Int64: Int] = [:]

    init(_ numbers: [Int64], rows: Int) {
        let maxNumber = numbers.max() ?? 0
        if maxNumber < Int64(4 * max(rows, numbers.count) + 1024), numbers.allSatisfy({ $0 >= 0 }) {
            table = [Int32](repeating: -1, count: Int(maxNumber) + 1)
            present = [UInt64](repeating: 0, count: Int(maxNumber) / 64 + 1)
            for (i, n) in numbers.enumerated() {
                table[Int(n)] = Int32(i)
                present[Int(n) >> 6] |= 1 << UInt64(n & 63)
            }
        } else {
            map.reserveCapacity(numbers.count)
            for (i, n) in numbers.enumerated() { map[n] = i }
        }
    }

    subscript(_ number: Int64) -> Int? {
        if !table.isEmpty {
            guard number >= 0, number < Int64(table.count),
                present[Int(number) >> 6] & (1 << UInt64(number & 63)) != 0
            else { return nil }
            let i = table[Int(number)]
            return i < 0 ? nil : Int(i)
        }
        return map[number]
    }
}

extension CountedBTree {
    /// Every entry whose id `lookup` holds, in rank order: its index in the lookup, its
    /// rank, and its leaf with its slot there (to load its key). One walk of the tree.
    func forEachHeld(_ lookup: IDLookup, _ body: (_ index: Int, _ rank: Int, _ leaf: Entries, _ slot: Int) -> Void) {
        forEachLeaf { entries, first in
            entries.ids.withUnsafeBufferPointer { ids in
                for e in ids.indices {
                    if let i = lookup[ids[e]] { body(i, first + e, entries, e) }
                }
            }
        }
    }
}
