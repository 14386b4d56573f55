// The benchmark workload, defined once in Benchmarks/WORKLOAD.md and re-implemented by every
// baseline (Swift here, Python in Benchmarks/python) so all of them see the same rows and the
// same changes.

/// SplitMix64: tiny, fast and trivially portable, so Python produces the identical sequence.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A 47-bit sort key: positive, and still exact as a double (jansson, JavaScript clients).
    mutating func nextKey() -> Int64 { Int64(next() >> 17) }
}

enum Workload {
    static let rowSeed: UInt64 = 20_261_123
    static let changeSeed: UInt64 = 7

    struct Row {
        var id: Int64
        var ts: Int64
        var sender: String
        var body: String
    }

    /// Rows 1...n in id order.
    static func rows(count n: Int) -> some Sequence<Row> {
        var rng = SplitMix64(seed: rowSeed)
        return (1...Int64(n)).lazy.map { id in
            Row(
                id: id, ts: rng.nextKey(), sender: "sender-\(id % 500)",
                body: "body of message \(id) for the benchmark")
        }
    }

    /// The endless sequence of single-row changes: row `id` gets sort key `ts`.
    struct Changes {
        private var rng = SplitMix64(seed: Workload.changeSeed)
        let rowCount: Int

        init(rowCount: Int) { self.rowCount = rowCount }

        mutating func next() -> (id: Int64, ts: Int64) {
            let id = Int64(rng.next() % UInt64(rowCount)) + 1
            return (id, rng.nextKey())
        }
    }
}
