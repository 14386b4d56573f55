/// Id numbers to leave out of a scan, tested once per row: a bitmap over their range when
/// that is not much larger than the table could be (a shift and a mask per row, where a
/// hashed set costs a hash), else the set itself.
struct NumberSet {
    private let low: Int64
    private let bits: [UInt64]
    private let fallback: Set<Int64>?
    let isEmpty: Bool

    init(_ numbers: Set<Int64>) {
        isEmpty = numbers.isEmpty
        guard let lo = numbers.min(), let hi = numbers.max(), hi - lo < 1 << 26 else {
            (low, bits, fallback) = (0, [], numbers)
            return
        }
        var bits = [UInt64](repeating: 0, count: Int((hi - lo) >> 6) + 1)
        for n in numbers { bits[Int((n - lo) >> 6)] |= 1 << UInt64((n - lo) & 63) }
        (low, self.bits, fallback) = (lo, bits, nil)
    }

    @inline(__always) func contains(_ n: Int64) -> Bool {
        if let fallback { return fallback.contains(n) }
        let d = n &- low
        guard d >= 0, d >> 6 < Int64(bits.count) else { return false }
        return bits[Int(d >> 6)] & (1 << UInt64(d & 63)) != 0
    }
}
