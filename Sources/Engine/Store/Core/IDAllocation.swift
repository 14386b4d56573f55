import Model

/// A run of numbers of one entity that this store reserved in the file and hands out one by
/// one; `end` is exclusive.
struct IDBlock {
    var next: Int64
    var end: Int64
    /// The size of the next block: doubles up to `IDBlock.maxSize`, so a bulk insert takes
    /// few write transactions and a short session wastes few numbers.
    var nextSize: Int64
    /// The block reserved ahead of need (in a save, or at open), taken when this one runs out.
    var spare: Range<Int64>? = nil
    static let firstSize: Int64 = 16
    static let maxSize: Int64 = 4096

    init(_ numbers: Range<Int64>, nextSize: Int64) {
        next = numbers.lowerBound
        end = numbers.upperBound
        self.nextSize = nextSize
    }

    /// Less than half of the block is left (or none) and nothing is reserved after it.
    var wantsSpare: Bool { spare == nil && Self.wantsSpare(left: end - next, nextSize: nextSize) }

    /// The rule for both stores: a block with `left` numbers wants the next one reserved
    /// once less than half of that one's size is left.
    static func wantsSpare(left: Int64, nextSize: Int64) -> Bool { left * 2 < nextSize }

    /// Where the run of numbers from `next` ends: past the spare when it follows at once.
    var contiguousEnd: Int64 {
        if let spare, spare.lowerBound == end { return spare.upperBound }
        return end
    }
}
