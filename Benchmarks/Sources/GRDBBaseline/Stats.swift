// Percentiles over latency samples, nearest-rank definition (the same one the Python
// baseline and scripts/bench.sh use), so p99 of 15 samples is simply the largest.

struct Summary {
    let samples: Int
    let p50: Double
    let p99: Double
    let mean: Double
    let min: Double
    let max: Double

    init(_ values: [Double]) {
        precondition(!values.isEmpty, "a summary needs at least one sample")
        let sorted = values.sorted()
        samples = sorted.count
        p50 = Summary.nearestRank(sorted, 0.50)
        p99 = Summary.nearestRank(sorted, 0.99)
        mean = sorted.reduce(0, +) / Double(sorted.count)
        min = sorted.first!
        max = sorted.last!
    }

    /// The smallest sample with at least `q` of all samples at or below it.
    static func nearestRank(_ sorted: [Double], _ q: Double) -> Double {
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(rank, 1) - 1]
    }
}
