// What pg-baseline shares with the other baselines, re-implemented here as the workload
// asks (Benchmarks/WORKLOAD.md): the row generator, percentiles and the result line format.

import Foundation

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

    mutating func nextKey() -> Int64 { Int64(next() >> 17) }
}

/// Rows 1...n of the workload's `msg` table, as COPY text lines.
func workloadCopyLines(count n: Int, _ body: (String) throws -> Void) rethrows {
    var rng = SplitMix64(seed: 20_261_123)
    for id in 1...n {
        try body("\(id)\t\(rng.nextKey())\tsender-\(id % 500)\tbody of message \(id) for the benchmark\n")
    }
}

func nowMicros() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
}

/// Nearest-rank percentiles and the shared JSON result line (Benchmarks/README.md).
func resultLine(
    suite: String, metric: String, n: Int, samples values: [Double], extra: [(String, String)] = []
) -> String {
    let sorted = values.sorted()
    func rank(_ q: Double) -> Double { sorted[max(Int((q * Double(sorted.count)).rounded(.up)), 1) - 1] }
    let mean = sorted.reduce(0, +) / Double(sorted.count)
    var fields: [(String, String)] = [
        ("suite", "\"\(suite)\""), ("metric", "\"\(metric)\""), ("n", String(n)), ("unit", "\"us\""),
        ("samples", String(sorted.count)), ("p50", fmt(rank(0.5))), ("p99", fmt(rank(0.99))), ("mean", fmt(mean)),
        ("min", fmt(sorted.first!)), ("max", fmt(sorted.last!)),
    ]
    fields += extra
    return "{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
}

func fmt(_ x: Double) -> String { String(format: "%.3f", x) }
