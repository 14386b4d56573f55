import Model

/// The second half of a keyed fetch: the SQL rows, in order, merged with the rows of the
/// objects evaluated in memory (sorted the same way), and the window `[first, end)` of the
/// merge cut out. The ordering's comparison is taken once as a closure, so the comparison
/// that runs once per SQL row does not copy an existential; the next memory row is kept in
/// stored properties, so comparing with it retains nothing. A struct with mutating methods:
/// the per-row counters are plain stored properties.
struct KeyMerge {
    private let memory: [(Int64, SortKey)]
    /// The ordering's comparison of two keys; nil without an ordering (id numbers alone).
    private let compare: ((SortKey, SortKey) -> Int)?
    private let first: Int
    private let end: Int
    private var m = 0
    private var rank = 0
    private var headNumber: Int64 = 0
    private var headKey: SortKey = []

    /// `memory` is sorted here.
    init(memory: [(Int64, SortKey)], ordering: (any ObjectOrdering)?, first: Int, end: Int) {
        let compare = ordering?.keyComparison
        self.memory = memory.sorted { Self.before(compare, $0.0, $0.1, $1.0, $1.1) }
        self.compare = compare
        self.first = first
        self.end = end
        if let head = self.memory.first { (headNumber, headKey) = head }
    }

    /// Whether `(a, ak)` sorts before `(b, bk)`: key, then id number.
    @inline(__always)
    static func before(
        _ compare: ((SortKey, SortKey) -> Int)?, _ a: Int64, _ ak: SortKey, _ b: Int64, _ bk: SortKey
    ) -> Bool {
        let c = compare?(ak, bk) ?? 0
        return c != 0 ? c < 0 : a < b
    }

    /// One SQL row: the memory rows before it, then it.
    mutating func row(_ number: Int64, _ key: SortKey, _ body: (Int64, SortKey) -> Void) {
        while m < memory.count && Self.before(compare, headNumber, headKey, number, key) {
            emit(headNumber, headKey, body)
            advance()
        }
        emit(number, key, body)
    }

    /// After the last SQL row: the memory rows left.
    mutating func finish(_ body: (Int64, SortKey) -> Void) {
        while m < memory.count {
            emit(headNumber, headKey, body)
            advance()
        }
    }

    private mutating func advance() {
        m += 1
        if m < memory.count { (headNumber, headKey) = memory[m] }
    }

    private mutating func emit(_ number: Int64, _ key: SortKey, _ body: (Int64, SortKey) -> Void) {
        if rank >= first && rank < end { body(number, key) }
        rank += 1
    }
}
