import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// controller/setRequest's costs (Benchmarks/README.md goals), run with FETCHD_BENCH=1 in a
/// release build (see BenchmarkTests): a predicate change on a 1M-row controller against a
/// performFetch of the new request in the same run, and a refinement (the in-memory path)
/// over 10k results.
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct SetRequestBenchmarkTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Item",
            attributes: [
                Attribute(name: "value", type: .integer, indexed: true), Attribute(name: "tag", type: .integer),
            ])
    ])

    /// n `Item`s with a random value and the tag `number % 100`, written with plain SQL.
    static func store(n: Int) throws -> SQLiteStore {
        var rng = SeededRandom(seed: 78)
        let store = try SQLiteStore.open(model: model) { try SQLFunctions.register(on: $0) }
        let db = try store.connection
        try db.transaction {
            let s = try db.prepare("INSERT INTO \"Item\" (\"_pk\", \"value\", \"tag\") VALUES (?, ?, ?)")
            for i in 1...n {
                try s.run([
                    .integer(Int64(i)), .integer(Int64(rng.int(0..<1_000_000_000))), .integer(Int64(i % 100)),
                ])
            }
        }
        return store
    }

    static func request(_ predicate: String) throws -> CompiledRequest {
        try RequestCompiler(model: model).compile(
            FetchRequest(entity: "Item", predicate: predicate, sortDescriptors: [SortDescriptor(key: "value")]))
    }

    static let sizes =
        getenvString("FETCHD_BENCH_SIZES").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1_000_000]

    /// One tag out, another in: 2% of the rows differ. Best of three interleaved rounds.
    @Test(arguments: sizes)
    func predicateChangeAgainstPerformFetch(n: Int) throws {
        let main = try ObjectGraph(store: try Self.store(n: n)).context(ObjectGraph.mainContext)
        let old = try Self.request("tag != 7")
        let new = try Self.request("tag != 8")
        var change = Double.infinity
        var fetch = Double.infinity
        var events = 0
        for _ in 0..<3 {
            let c = FetchedResultsController(name: "items", source: main, request: old, model: Self.model)
            try c.performFetch()
            var t = BenchmarkTests.now()
            events = try c.setRequest(new, model: Self.model).count
            change = min(change, BenchmarkTests.now() - t)
            #expect(c.narrowedRequests == 0)
            let f = FetchedResultsController(name: "fresh", source: main, request: new, model: Self.model)
            t = BenchmarkTests.now()
            try f.performFetch()
            fetch = min(fetch, BenchmarkTests.now() - t)
            #expect(f.count == c.count)
        }
        BenchmarkTests.report(
            "n=\(n) setRequest predicate change \(BenchmarkTests.fmt(change * 1000)) ms (\(events) events) vs performFetch of the new request \(BenchmarkTests.fmt(fetch * 1000)) ms: \(BenchmarkTests.fmt(change / fetch))x"
        )
    }

    /// Exactly 10k results (half of 20k rows); a refinement keeps about half of them, then the old
    /// request comes back (a widening, which queries, untimed).
    @Test func refinementOverTenThousandResults() throws {
        let main = try ObjectGraph(store: try Self.store(n: 20_000)).context(ObjectGraph.mainContext)
        let wide = try Self.request("tag < 50")
        let narrow = try Self.request("tag < 50 AND value < 500000000")
        let c = FetchedResultsController(name: "items", source: main, request: wide, model: Self.model)
        try c.performFetch()
        #expect(c.count == 10_000)
        var times: [Double] = []
        for round in 0..<60 {
            let t = BenchmarkTests.now()
            _ = try c.setRequest(narrow, model: Self.model)
            times.append(BenchmarkTests.now() - t)
            #expect(c.narrowedRequests == round + 1)
            _ = try c.setRequest(wide, model: Self.model)
        }
        BenchmarkTests.report(
            "n=10000 setRequest refinement: p50 \(BenchmarkTests.fmt(BenchmarkTests.percentile(times, 0.5) * 1000)) ms, p99 \(BenchmarkTests.fmt(BenchmarkTests.percentile(times, 0.99) * 1000)) ms"
        )
    }

    /// A search field: names sorted, 10k results for "a", the next keystroke "am". The
    /// predicate reads only the sort key, so the held keys answer it: no object is read.
    @Test func keystrokeOverTenThousandResults() throws {
        let model = ObjectModel(entities: [
            Entity(name: "Person", attributes: [Attribute(name: "name", type: .string, indexed: true)])
        ])
        var rng = SeededRandom(seed: 79)
        let store = try SQLiteStore.open(model: model) { try SQLFunctions.register(on: $0) }
        let db = try store.connection
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        try db.transaction {
            let s = try db.prepare("INSERT INTO \"Person\" (\"_pk\", \"name\") VALUES (?, ?)")
            for i in 1...20_000 {
                let rest = String((0..<5).map { _ in letters[rng.int(0..<26)] })
                try s.run([.integer(Int64(i)), .text((i <= 10_000 ? "a" : "b") + rest)])
            }
        }
        let main = try ObjectGraph(store: store).context(ObjectGraph.mainContext)
        func request(_ prefix: String) throws -> CompiledRequest {
            try RequestCompiler(model: model).compile(
                FetchRequest(
                    entity: "Person", predicate: "name BEGINSWITH \"\(prefix)\"",
                    sortDescriptors: [SortDescriptor(key: "name")]))
        }
        let wide = try request("a")
        let narrow = try request("am")
        let c = FetchedResultsController(name: "people", source: main, request: wide, model: model)
        try c.performFetch()
        #expect(c.count == 10_000)
        var times: [Double] = []
        for round in 0..<60 {
            let t = BenchmarkTests.now()
            _ = try c.setRequest(narrow, model: model)
            times.append(BenchmarkTests.now() - t)
            #expect(c.narrowedRequests == round + 1)
            _ = try c.setRequest(wide, model: model)
        }
        BenchmarkTests.report(
            "n=10000 setRequest keystroke: p50 \(BenchmarkTests.fmt(BenchmarkTests.percentile(times, 0.5) * 1000)) ms, p99 \(BenchmarkTests.fmt(BenchmarkTests.percentile(times, 0.99) * 1000)) ms"
        )
    }
}
