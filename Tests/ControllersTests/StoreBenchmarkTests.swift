import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// The same measurements over the real engine (SQLite store, context, compiled request),
/// run only with FETCHD_BENCH=1 in a release build (see BenchmarkTests).
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct StoreBenchmarkTests {
    static let model = ObjectModel(entities: [
        Entity(name: "Item", attributes: [Attribute(name: "value", type: .integer, indexed: true)])
    ])

    /// FETCHD_BENCH_SIZES and FETCHD_BENCH_BIG=0 as in BenchmarkTests.
    static let sizes =
        getenvString("FETCHD_BENCH_SIZES").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [
            100_000, 1_000_000,
        ]

    @Test(arguments: sizes)
    func overSQLite(n: Int) throws {
        var rng = SeededRandom(seed: 77)
        let store = try SQLiteStore.open(model: Self.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        var delivered: [ChangeSet] = []
        graph.observeChangeSets { delivered.append($0) }
        let main = try graph.context(ObjectGraph.mainContext)
        var inserted = 0
        while inserted < n {
            for _ in 0..<min(50_000, n - inserted) {
                _ = try main.insert("Item", ["value": .integer(Int64(rng.int(0..<1_000_000_000)))])
            }
            inserted += min(50_000, n - inserted)
            _ = try main.save()
            graph.processPendingChanges()
            delivered.removeAll()
        }
        let compiled = try RequestCompiler(model: Self.model).compile(
            FetchRequest(entity: "Item", sortDescriptors: [SortDescriptor(key: "value")]))
        let c = FetchedResultsController(name: "items", source: main, request: compiled, model: Self.model)
        var t = BenchmarkTests.now()
        try c.performFetch()
        let fetch = BenchmarkTests.now() - t
        #expect(c.count == n)
        BenchmarkTests.report(
            "sqlite n=\(n) performFetch \(BenchmarkTests.fmt(fetch * 1000)) ms (SQL keyed fetch + bulk load)")

        var samples: [Double] = []
        for _ in 0..<500 {
            try main.update(
                ObjectID(entity: "Item", number: Int64(1 + rng.int(0..<n))),
                ["value": .integer(Int64(rng.int(0..<1_000_000_000)))])
            graph.processPendingChanges()
            let cs = delivered.removeFirst()
            t = BenchmarkTests.now()
            let events = c.apply(cs)
            samples.append(BenchmarkTests.now() - t)
            #expect(events.count == 3)
        }
        BenchmarkTests.report(
            "sqlite n=\(n) one changed object: p50 \(BenchmarkTests.fmt(BenchmarkTests.percentile(samples, 0.5) * 1e6)) us, p99 \(BenchmarkTests.fmt(BenchmarkTests.percentile(samples, 0.99) * 1e6)) us"
        )

        for k in getenvString("FETCHD_BENCH_BIG") == "0" ? [10_000, 10_000, 10_000] : [10_000, n / 5] {
            for _ in 0..<k {
                try main.update(
                    ObjectID(entity: "Item", number: Int64(1 + rng.int(0..<n))),
                    ["value": .integer(Int64(rng.int(0..<1_000_000_000)))])
            }
            graph.processPendingChanges()
            let cs = delivered.removeFirst()
            t = BenchmarkTests.now()
            let events = c.apply(cs)
            let cycle = BenchmarkTests.now() - t
            #expect(events.count > 2 && c.count == n)
            // The fair baseline: a fresh performFetch in the same state (the context still
            // holds the cycle's unsaved changes, which its fetch overlays on the SQL rows).
            t = BenchmarkTests.now()
            try c.performFetch()
            let refetch = BenchmarkTests.now() - t
            BenchmarkTests.report(
                "sqlite n=\(n) \(cs.changes.count)-change cycle\(c.lastCycleRebuilt ? " (rebuild)" : " (incremental)") \(BenchmarkTests.fmt(cycle * 1000)) ms; fresh performFetch now \(BenchmarkTests.fmt(refetch * 1000)) ms: \(BenchmarkTests.fmt(cycle / refetch))x"
            )
        }
    }
}

/// A keyed fetch over 10k unsaved changes against the same fetch of the saved state, 1M rows
/// (FETCHD_BENCH=1, release): the overlay's cost (Context+Fetch.swift). Best of three each.
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct UnsavedFetchBenchmarkTests {
    @Test func fetchOverTenThousandUnsavedChanges() throws {
        let n = StoreBenchmarkTests.sizes.max() ?? 1_000_000
        var rng = SeededRandom(seed: 78)
        let store = try SetRequestBenchmarkTests.store(n: n)
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        let compiled = try RequestCompiler(model: SetRequestBenchmarkTests.model).compile(
            FetchRequest(entity: "Item", sortDescriptors: [SortDescriptor(key: "value")]))
        let c = FetchedResultsController(
            name: "items", source: main, request: compiled, model: SetRequestBenchmarkTests.model)
        func best() throws -> Double {
            var b = Double.infinity
            for _ in 0..<3 {
                let t = BenchmarkTests.now()
                try c.performFetch()
                b = min(b, BenchmarkTests.now() - t)
            }
            return b
        }
        let saved = try best()
        for _ in 0..<10_000 {
            try main.update(
                ObjectID(entity: "Item", number: Int64(1 + rng.int(0..<n))),
                ["value": .integer(Int64(rng.int(0..<1_000_000_000)))])
        }
        graph.processPendingChanges()
        let unsaved = try best()
        for _ in 0..<(Int(getenvString("FETCHD_BENCH_REPEAT") ?? "") ?? 0) { try c.performFetch() }
        #expect(c.count == n)
        BenchmarkTests.report(
            "n=\(n) performFetch over 10k unsaved changes \(BenchmarkTests.fmt(unsaved * 1000)) ms vs saved \(BenchmarkTests.fmt(saved * 1000)) ms: \(BenchmarkTests.fmt(unsaved / saved))x"
        )
    }
}
