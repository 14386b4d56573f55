import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// What a save costs with the history recorded (fetchd writes its rows itself; compare the
/// figures with a build before the history): a bulk save and the median one-change save on
/// a file store, best of five rounds. Runs only with FETCHD_BENCH=1 (a release build);
/// FETCHD_PERF_N sets the bulk size.
@Suite(.serialized, .enabled(if: PerformanceTests.env("FETCHD_BENCH") == "1")) struct HistoryCostBenchmarkTests {
    /// Seconds of one bulk save of `n` inserts, and the median seconds of a one-change save.
    func measure(n: Int) throws -> (bulk: Double, one: Double) {
        let dir = TempDir()
        let g = ObjectGraph(store: try SQLiteStore.open(path: dir.file("bench.sqlite"), model: PerformanceTests.model))
        defer { g.close() }
        let main = try g.context("main")
        var ids: [ObjectID] = []
        for i in 1...n {
            ids.append(
                try main.insert(
                    "Item",
                    ["name": .string("item \(i)"), "n": .integer(Int64(i % 97)), "score": .double(Double(i) / 3)]))
        }
        var t0 = PerformanceTests.now()
        try main.save()
        let bulk = PerformanceTests.now() - t0
        var samples: [Double] = []
        var written = 1
        var rng = SplitMix64(seed: 5)
        for k in 0..<2000 {
            try main.update(ids[Int(rng.next() % UInt64(n))], ["n": .integer(Int64(k))])
            t0 = PerformanceTests.now()
            written += try main.save().updated
            samples.append(PerformanceTests.now() - t0)
        }
        samples.sort()
        // One transaction in the history per save that wrote.
        #expect(try g.store.history(after: 0).count == written)
        return (bulk, samples[samples.count / 2])
    }

    @Test func savesWithHistory() throws {
        let n = Int(PerformanceTests.env("FETCHD_PERF_N") ?? "") ?? 20_000
        var best = (bulk: Double.infinity, one: Double.infinity)
        for _ in 0..<5 {
            let m = try measure(n: n)
            best = (min(best.bulk, m.bulk), min(best.one, m.one))
        }
        func f(_ x: Double) -> String { String((x * 100).rounded() / 100) }
        print("HISTORY n=\(n) bulk save \(f(best.bulk * 1000)) ms; one-change save median \(f(best.one * 1e6)) us")
    }
}
