import Model

/// The second half of a keyed fetch: the SQL rows, in order, merged with the rows of the
/// objects evaluated in memory (sorted the same way), and the window `[first, end)` of the
/// merge cut out. A struct with mutating methods, so the per-row counters are plain stored
/// properties (counters captured by local functions cost an exclusivity check per access).
struct KeyMerge {
    private let memory: [(Int64, SortKey)]
    private let ordering: (any ObjectOrdering)?
    private let first: Int
    private let end: Int
    private var m = 0
    private var rank = 0

    init(memory: [(Int64, SortKey)], ordering: (any ObjectOrdering)?, first: Int, end: Int) {
        self.memory = memory
        self.ordering = ordering
        self.first = first
        self.end = end
    }

    /// Whether `(a, ak)` sorts before `(b, bk)`: key, then id number.
    static func before(_ ordering: (any ObjectOrdering)?, _ a: Int64, _ ak: SortKey, _ b: Int64, _ bk: SortKey) -> Bool
    {
        let c = ordering?.compare(ak, bk) ?? 0
        return c != 0 ? c < 0 : a < b
    }

    /// One SQL row: the memory rows before it, then it.
    mutating func row(_ number: Int64, _ key: SortKey, _ body: (Int64, SortKey) -> Void) {
        while m < memory.count && Self.before(ordering, memory[m].0, memory[m].1, number, key) {
            emit(memory[m].0, memory[m].1, body)
            m += 1
        }
        emit(number, key, body)
    }

    /// After the last SQL row: the memory rows left.
    mutating func finish(_ body: (Int64, SortKey) -> Void) {
        while m < memory.count {
            emit(memory[m].0, memory[m].1, body)
            m += 1
        }
    }

    private mutating func emit(_ number: Int64, _ key: SortKey, _ body: (Int64, SortKey) -> Void) {
        if rank >= first && rank < end { body(number, key) }
        rank += 1
    }
}
