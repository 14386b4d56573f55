import CSQLite
import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

#if canImport(Glibc)
    import Glibc
#endif

/// performFetch through a real context over an in-memory store against the floor: the C API
/// stepping the same ordered SELECT of ids and keys into two arrays, in the same run. Run
/// with FETCHD_BENCH=1 in a release build (see BenchmarkTests); FETCHD_PERF_ASSERT=1 also
/// asserts the goals of Benchmarks/README.md (fetch <= 2x the raw SELECT, <= 48 bytes of RSS per row).
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct FetchBenchmarkTests {
    static let model = ObjectModel(entities: [
        Entity(name: "Item", attributes: [Attribute(name: "value", type: .integer, indexed: true)])
    ])

    /// A store of n `Item`s with random integer values, written with plain SQL (the context
    /// only reads here, so its bookkeeping of new numbers does not matter).
    static func store(n: Int) throws -> SQLiteStore {
        var rng = SeededRandom(seed: 77)
        let store = try SQLiteStore.open(model: model) { try SQLFunctions.register(on: $0) }
        let db = try store.connection
        try db.transaction {
            let s = try db.prepare("INSERT INTO \"Item\" (\"_pk\", \"value\") VALUES (?, ?)")
            for i in 1...n { try s.run([.integer(Int64(i)), .integer(Int64(rng.int(0..<1_000_000_000)))]) }
        }
        return store
    }

    /// The floor: the statement a context's keyed fetch runs, stepped with the C API.
    static func rawSelect(_ store: SQLiteStore, n: Int) throws -> Double {
        let db = try store.connection.handle
        var s: OpaquePointer?
        let sql = "SELECT t.\"_pk\", t.\"value\" FROM \"Item\" AS t ORDER BY t.\"value\" ASC, t.\"_pk\""
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK else {
            throw EngineError(.storeError, "prepare failed")
        }
        defer { sqlite3_finalize(s) }
        let t = BenchmarkTests.now()
        var ids: [Int64] = []
        var keys: [Int64] = []
        ids.reserveCapacity(n)
        keys.reserveCapacity(n)
        while sqlite3_step(s) == SQLITE_ROW {
            ids.append(sqlite3_column_int64(s, 0))
            keys.append(sqlite3_column_int64(s, 1))
        }
        let elapsed = BenchmarkTests.now() - t
        #expect(ids.count == n)
        return elapsed
    }

    /// Resident bytes of this process (the second field of /proc/self/statm, in pages).
    static func rss() -> Int {
        guard let f = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, 256, f) != nil else { return 0 }
        let fields = String(cString: line).split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// FETCHD_BENCH_SIZES=100000 picks the sizes (a focused run under callgrind or perf).
    static let sizes =
        getenvString("FETCHD_BENCH_SIZES").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [
            100_000, 1_000_000,
        ]

    @Test(arguments: sizes)
    func performFetchAgainstRawSelect(n: Int) throws {
        let strict = getenvString("FETCHD_PERF_ASSERT") == "1"
        let store = try Self.store(n: n)
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        let compiled = try RequestCompiler(model: Self.model).compile(
            FetchRequest(entity: "Item", sortDescriptors: [SortDescriptor(key: "value")]))

        // Memory first, on the first controller of the process: what a fetch leaves resident.
        let before = Self.rss()
        let kept = FetchedResultsController(name: "items", source: main, request: compiled, model: Self.model)
        try kept.performFetch()
        let perRow = Double(Self.rss() - before) / Double(n)
        let tree = Double(kept.results.rows.footprint) / Double(n)
        #expect(kept.count == n)
        BenchmarkTests.report(
            "fetch n=\(n) memory: RSS delta \(BenchmarkTests.fmt(perRow)) B/row, tree \(BenchmarkTests.fmt(tree)) B/row"
        )

        // Best of five interleaved rounds each (CPU time of this thread): the machine is shared.
        var raw = Double.infinity
        var fetch = Double.infinity
        for _ in 0..<5 {
            raw = min(raw, try Self.rawSelect(store, n: n))
            let c = FetchedResultsController(name: "items", source: main, request: compiled, model: Self.model)
            let t = BenchmarkTests.now()
            try c.performFetch()
            fetch = min(fetch, BenchmarkTests.now() - t)
            #expect(c.count == n)
        }
        let ratio = fetch / raw
        BenchmarkTests.report(
            "fetch n=\(n) performFetch \(BenchmarkTests.fmt(fetch * 1000)) ms vs raw SELECT \(BenchmarkTests.fmt(raw * 1000)) ms: \(BenchmarkTests.fmt(ratio))x"
        )
        if strict {
            #expect(ratio <= 2, "performFetch \(ratio)x the raw SELECT")
            if n >= 1_000_000 { #expect(perRow <= 48, "\(perRow) bytes of RSS per row") }
        }
        withExtendedLifetime(kept) {}
    }
}
