import Model

/// What a controller has measured of its own costs, to choose between updating its tree
/// change by change and rebuilding it from a fresh keyed fetch. Either path gives the same
/// notifications; only the time differs, so the choice may depend on the clock.
///
/// A rebuild costs its fetch (more for each unsaved object the fetch evaluates in memory),
/// two walks of the rows held and the classification of each change; an incremental cycle,
/// a tree update and the same classification per change. So a rebuild pays off for a fill
/// of saved rows into an empty tree, and hardly ever otherwise. The first guesses are
/// fetchd's own figures (Benchmarks/README.md, "Measurements behind the code").
struct CycleCost {
    /// Time of the last keyed fetch (performFetch, a rebuild, setRequest), in nanoseconds.
    var fetchNanos: Double = 0
    /// Incremental cost per affected object, a moving average (a first guess until measured).
    var incrementalNanosPerChange: Double = 2_000
    /// A fill one change at a time, per change: into an empty tree, cheaper than the above.
    static let fillNanosPerChange: Double = 800
    /// A fetch per row it gives, until a fetch of many rows measured it.
    var fetchNanosPerRow: Double = 100
    /// A rebuild's two walks, per row held; its classification and events, per change; the
    /// fetch's evaluation of an unsaved object.
    static let walkNanosPerRow: Double = 110
    static let rebuildNanosPerChange: Double = 1_600
    static let overlayNanosPerObject: Double = 1_400

    /// Rebuild when the fetch plus the rebuild's walks and per-change work is predicted to
    /// be cheaper than k incremental updates (and only for large cycles): `held` rows in the
    /// tree, `unsaved` objects the fetch evaluates in memory.
    /// (`unsaved` is asked only then: most cycles change one object.)
    func prefersRebuild(changes k: Int, held: Int, unsaved: () -> Int) -> Bool {
        guard k >= 512, fetchNanos > 0 else { return false }
        let fetch =
            max(fetchNanos, Double(max(held, k)) * fetchNanosPerRow) + Double(unsaved()) * Self.overlayNanosPerObject
        guard held > 0 else { return fetch < Double(k) * Self.fillNanosPerChange }
        let rebuild = fetch + Double(held) * Self.walkNanosPerRow + Double(k) * Self.rebuildNanosPerChange
        return rebuild < Double(k) * incrementalNanosPerChange
    }

    mutating func recordIncremental(nanos: Double, changes k: Int) {
        guard k > 0 else { return }
        // Weighted by size, so one big cycle counts more than many tiny ones.
        let weight = min(1, Double(k) / 1000)
        incrementalNanosPerChange += (nanos / Double(k) - incrementalNanosPerChange) * weight * 0.5
    }

    /// A keyed fetch of `rows` rows took `nanos`; one of many rows also measures the cost of
    /// a row.
    mutating func recordFetch(nanos: Double, rows: Int) {
        fetchNanos = nanos
        if rows >= 10_000 { fetchNanosPerRow = nanos / Double(rows) }
    }

    static func now() -> Double { Double(monotonicNanoseconds()) }
}
