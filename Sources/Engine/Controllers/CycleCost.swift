import Model

/// What a controller has measured of its own costs, to choose between updating its tree
/// change by change and rebuilding it from a fresh keyed fetch. Either path gives the same
/// notifications; only the time differs, so the choice may depend on the clock.
struct CycleCost {
    /// Time of the last keyed fetch (performFetch or rebuild), in nanoseconds.
    var fetchNanos: Double = 0
    /// Incremental cost per affected object, a moving average (a first guess until measured).
    var incrementalNanosPerChange: Double = 8_000
    /// What a rebuild adds to a clean fetch per affected object: walks, classification and
    /// events, plus what a context's fetch pays for each unsaved change it overlays on the SQL
    /// rows (a first guess from Benchmarks/README.md, "Measurements behind the code").
    var rebuildNanosPerChange: Double = 6_000

    /// Rebuild when the fetch plus the per-change work of a rebuild is predicted to be
    /// cheaper than k incremental updates (and only for large cycles).
    func prefersRebuild(changes k: Int) -> Bool {
        guard k >= 512, fetchNanos > 0 else { return false }
        return fetchNanos + Double(k) * rebuildNanosPerChange < Double(k) * incrementalNanosPerChange
    }

    mutating func recordIncremental(nanos: Double, changes k: Int) {
        guard k > 0 else { return }
        // Weighted by size, so one big cycle counts more than many tiny ones.
        let weight = min(1, Double(k) / 1000)
        incrementalNanosPerChange += (nanos / Double(k) - incrementalNanosPerChange) * weight * 0.5
    }

    static func now() -> Double { Double(monotonicNanoseconds()) }
}
