import Testing
import TestSupport
import Model
import SQLite
import Store
@testable import Contexts

/// What history capture costs a save: the same saves on a file store with the history
/// triggers and with them dropped, interleaved, best of five rounds. Runs only with
/// FETCHD_BENCH=1 (a release build); FETCHD_PERF_N sets the bulk size.
@Suite(.serialized, .enabled(if: PerformanceTests.env("FETCHD_BENCH") == "1")) struct HistoryCostBenchmarkTests {
    static let model = PerformanceTests.model

    func graph(_ dir: TempDir, _ name: String, capture: Bool) throws -> ObjectGraph {
        let store = try Store.open(path: dir.file(name), model: Self.model)
        if !capture {
            let db = try store.connection
            let s = try db.prepareUncached("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            var names: [String] = []
            while try s.step() { names.append(s.text(0)) }
            for n in names { try db.execute("DROP TRIGGER \"\(n)\"") }
        }
        return ObjectGraph(store: store)
    }

    /// Seconds of one bulk save of `n` inserts, and the median seconds of a one-change save.
    func measure(capture: Bool, n: Int) throws -> (bulk: Double, one: Double) {
        let dir = TempDir()
        let g = try graph(dir, "bench.sqlite", capture: capture)
        defer { g.close() }
        let main = try g.context("main")
        var ids: [ObjectID] = []
        for i in 1...n {
            ids.append(try main.insert("Item", ["name": .string("item \(i)"), "n": .integer(Int64(i % 97)), "score": .double(Double(i) / 3)]))
        }
        var t0 = PerformanceTests.now()
        try main.save()
        let bulk = PerformanceTests.now() - t0
        var samples: [Double] = []
        var rng = SplitMix64(seed: 5)
        for k in 0..<2000 {
            try main.update(ids[Int(rng.next() % UInt64(n))], ["n": .integer(Int64(k))])
            t0 = PerformanceTests.now()
            try main.save()
            samples.append(PerformanceTests.now() - t0)
        }
        samples.sort()
        return (bulk, samples[samples.count / 2])
    }

    @Test func captureCostOfSaves() throws {
        let n = Int(PerformanceTests.env("FETCHD_PERF_N") ?? "") ?? 20_000
        var with = (bulk: Double.infinity, one: Double.infinity), without = with
        for _ in 0..<5 {
            let a = try measure(capture: false, n: n), b = try measure(capture: true, n: n)
            without = (min(without.bulk, a.bulk), min(without.one, a.one))
            with = (min(with.bulk, b.bulk), min(with.one, b.one))
        }
        func f(_ x: Double) -> String { String((x * 100).rounded() / 100) }
        print("HISTORY n=\(n) bulk save: \(f(without.bulk * 1000)) ms without capture, \(f(with.bulk * 1000)) ms with (\(f(with.bulk / without.bulk))x); "
              + "one-change save median: \(f(without.one * 1e6)) us without, \(f(with.one * 1e6)) us with (\(f(with.one / without.one))x)")
        #expect(with.bulk > 0 && without.one > 0)
    }
}
