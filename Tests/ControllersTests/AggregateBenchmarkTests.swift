import Contexts
import Model
import Predicates
import SQLite
import Store
import Testing

@testable import Controllers

/// A dictionary fetch's cost against SQLite's own: `sum` grouped by a 100-value key over n rows
/// through `Context.fetchDictionaries` vs the raw `SELECT tag, sum(value) ... GROUP BY tag` on
/// the same connection, best of five interleaved rounds (FETCHD_BENCH=1, release; see
/// BenchmarkTests).
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct AggregateBenchmarkTests {
    @Test(arguments: SetRequestBenchmarkTests.sizes)
    func groupedSumAgainstRawSQL(n: Int) throws {
        let store = try SetRequestBenchmarkTests.store(n: n)
        let main = try ObjectGraph(store: store).context(ObjectGraph.mainContext)
        let request = DictionaryRequest(
            entity: "Item",
            properties: [
                DictionaryProperty(name: "tag", keyPath: "tag"),
                DictionaryProperty(name: "total", keyPath: "value", function: .sum),
            ],
            groupBy: ["tag"])
        let db = try store.connection
        var engine = Double.infinity
        var raw = Double.infinity
        var rows = 0
        for _ in 0..<5 {
            var t = BenchmarkTests.now()
            rows = try main.fetchDictionaries(request).count
            engine = min(engine, BenchmarkTests.now() - t)
            t = BenchmarkTests.now()
            let s = try db.prepare("SELECT \"tag\", sum(\"value\") FROM \"Item\" GROUP BY \"tag\"")
            var rawRows = 0
            while try s.step() { rawRows += 1 }
            s.reset()
            raw = min(raw, BenchmarkTests.now() - t)
            #expect(rawRows == rows)
        }
        #expect(rows == 100)
        BenchmarkTests.report(
            "n=\(n) grouped sum \(BenchmarkTests.fmt(engine * 1000)) ms vs raw SQL GROUP BY \(BenchmarkTests.fmt(raw * 1000)) ms: \(BenchmarkTests.fmt(engine / raw))x"
        )
    }
}
