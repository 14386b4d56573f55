import Model
import SQLite
import Store
import Testing

@testable import Contexts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bulk insert + save against a raw prepared-statement loop in the same run, and reads by id.
/// FETCHD_PERF_N sets the size (100000 for the report); the ratios are asserted when
/// FETCHD_PERF_ASSERT=1 (release builds: debug Swift is several times slower than SQLite).
@Suite struct PerformanceTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Item",
            attributes: [
                Attribute(name: "name", type: .string), Attribute(name: "n", type: .integer),
                Attribute(name: "score", type: .double, optional: true),
            ])
    ])

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func env(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    @Test func bulkSaveKeepsUpWithARawInsertLoopAndGetsAreFast() throws {
        let n = Int(Self.env("FETCHD_PERF_N") ?? "") ?? 10_000
        let strict = Self.env("FETCHD_PERF_ASSERT") == "1"

        // Best of three rounds each, interleaved: the machine is shared, so the best round is
        // the one least disturbed.
        var rawSeconds = Double.infinity
        var insertSeconds = Double.infinity
        var cycleSeconds = Double.infinity
        var saveSeconds = Double.infinity
        var main: Context! = nil
        // The context holds its graph weakly; this keeps the last round's graph alive.
        var graph: ObjectGraph! = nil
        for _ in 0..<3 {
            // Raw: one prepared statement, bound and stepped n times in one transaction.
            let raw = try SQLiteStore.open(model: Self.model)
            let db = try raw.connection
            var t0 = Self.now()
            try db.transaction {
                let s = try db.prepare("INSERT INTO \"Item\" (\"_pk\", \"name\", \"n\", \"score\") VALUES (?, ?, ?, ?)")
                for i in 1...n {
                    try s.run([.integer(Int64(i)), .text("item \(i)"), .integer(Int64(i % 97)), .real(Double(i) / 3)])
                }
            }
            rawSeconds = min(rawSeconds, Self.now() - t0)
            raw.close()

            // Engine: n inserts in one cycle, then the save.
            graph = ObjectGraph(store: try SQLiteStore.open(model: Self.model))
            main = try graph.context("main")
            t0 = Self.now()
            for i in 1...n {
                try main.insert(
                    "Item",
                    ["name": .string("item \(i)"), "n": .integer(Int64(i % 97)), "score": .double(Double(i) / 3)])
            }
            insertSeconds = min(insertSeconds, Self.now() - t0)
            t0 = Self.now()
            main.processPendingChanges()
            cycleSeconds = min(cycleSeconds, Self.now() - t0)
            t0 = Self.now()
            let counts = try main.save()
            saveSeconds = min(saveSeconds, Self.now() - t0)
            #expect(counts.inserted == n)
        }
        #expect(try main.count(entity: "Item") == n)
        #expect(
            try graph.store.read(ObjectID(entity: "Item", number: Int64(n)))?.values["n"] == .integer(Int64(n % 97)))

        // Reads by id, spread over the table.
        let reads = min(n, 100_000)
        let t0 = Self.now()
        var found = 0
        for k in 0..<reads {
            let id = ObjectID(entity: "Item", number: Int64((k &* 7919) % n + 1))
            if try main.object(id) != nil { found += 1 }
        }
        let getMicros = (Self.now() - t0) / Double(reads) * 1e6
        #expect(found == reads)

        let rawRate = Double(n) / rawSeconds
        let saveRate = Double(n) / saveSeconds
        print(
            "PERF n=\(n) raw=\(Int(rawRate))/s save=\(Int(saveRate))/s (ratio \((saveRate / rawRate * 100).rounded() / 100)) insert=\(Int(Double(n) / insertSeconds))/s cycle=\((cycleSeconds * 1000).rounded())ms get=\((getMicros * 100).rounded() / 100)us"
        )
        if strict {
            #expect(saveRate >= rawRate / 2, "save \(saveRate)/s < half of raw \(rawRate)/s")
            #expect(getMicros <= 10, "get by id \(getMicros) us")
        }
        withExtendedLifetime(graph) {}
    }
}
