import Model

/// Orders keys by index for a sort of a cycle's new entries. The keys are copied into one
/// flat buffer and each comparison loads its two keys into reused buffers: comparing the
/// keys' own arrays retains and releases both (and touches two scattered heap blocks) on
/// every comparison.
struct KeySorter {
    private let ordering: any ObjectOrdering
    private let width: Int
    private let flat: [Value]
    private let ids: [Int64]
    private var a: SortKey
    private var b: SortKey

    init(ordering: any ObjectOrdering, keys: [SortKey], ids: [Int64]) {
        self.ordering = ordering
        width = keys.first?.count ?? 0
        var flat: [Value] = []
        flat.reserveCapacity(keys.count * width)
        for key in keys { flat.append(contentsOf: key) }
        self.flat = flat
        self.ids = ids
        a = SortKey(repeating: .null, count: width)
        b = a
    }

    /// Whether entry `x` sorts before entry `y` (key, then id number).
    mutating func less(_ x: Int, _ y: Int) -> Bool {
        for c in 0..<width {
            a[c] = flat[x * width + c]
            b[c] = flat[y * width + c]
        }
        let c = ordering.compare(a, b)
        return c != 0 ? c < 0 : ids[x] < ids[y]
    }
}
