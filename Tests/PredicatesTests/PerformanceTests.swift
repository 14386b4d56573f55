import Model
import Testing

@testable import Predicates

/// Costs of the controller hot path. Prints ns per call and checks every timed call gives the
/// answer it should; in a release build
/// (`swift test -c release -Xswiftc -enable-testing --filter PerformanceTests`) with
/// FETCHD_PERF_ASSERT=1 it also holds a simple comparison to 100 ns.
@Suite struct PerformanceTests {
    private static let strict = getenv("FETCHD_PERF_ASSERT").map { String(cString: $0) } == "1"
    private static let rounds = 5

    /// Thread CPU time per call, the best of five rounds: the machine is shared, and time
    /// spent descheduled is not the code's cost. Every call must return `expected` (counting
    /// the answers also keeps the optimizer from dropping the calls).
    private func nanoseconds(
        _ iterations: Int, expect expected: Bool, _ label: String,
        _ body: () -> Bool
    ) -> Double {
        var hits = 0
        var best = Double.infinity
        for _ in 0..<Self.rounds {
            let start = cpuNanoseconds()
            for _ in 0..<iterations where body() { hits += 1 }
            best = min(best, Double(cpuNanoseconds() - start) / Double(iterations))
        }
        let calls = Self.rounds * iterations
        #expect(hits == (expected ? calls : 0), "\(label): \(hits) of \(calls) calls returned true")
        return best
    }

    private func cpuNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    @Test func inMemoryEvaluationCost() throws {
        let l = try Sample.library()
        let id = ObjectID(entity: "Author", number: 1)
        let values = l.objects[id]!
        var report: [String] = []
        var simple = 0.0
        // What the harness and one snapshot lookup cost by themselves, for comparison.
        let baseline = nanoseconds(100_000, expect: true, "baseline") { values["age"] != nil }
        report.append("baseline (snapshot lookup): \(Int(baseline)) ns")
        // Author/1 is Ana, 30, no mentor, author of a 300-page book (Sample.library).
        let cases: [(String, Bool)] = [
            ("age > 30", false), ("name == 'Ana'", true), ("name BEGINSWITH[c] 'an'", true),
            ("age > 20 AND name != nil", true), ("mentor.name == 'Ana'", false),
            ("ANY books.pages > 200", true), ("name LIKE 'A*a'", true),
        ]
        for (predicate, expected) in cases {
            let filter = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate)).filter
            let ns = nanoseconds(100_000, expect: expected, predicate) { filter.matches(id, values, in: l) }
            if predicate == "age > 30" { simple = ns }
            report.append("\(predicate): \(Int(ns)) ns")
        }
        let ordering = try l.compiler.compile(
            FetchRequest(
                entity: "Author",
                sortDescriptors: [
                    SortDescriptor(key: "name", comparator: .caseInsensitiveCompare), SortDescriptor(key: "age"),
                ])
        ).ordering
        let a = ordering.key(of: id, values, in: l)
        let b2 = ObjectID(entity: "Author", number: 2)
        let b = ordering.key(of: b2, l.objects[b2]!, in: l)
        // "Ana" and "ana" tie case-insensitively; then age 30 > 25, so Author/1 sorts after Author/2.
        let compare = nanoseconds(100_000, expect: false, "compare") { ordering.compare(a, b) < 0 }
        report.append("compare(name[c], age): \(Int(compare)) ns")
        let key = nanoseconds(100_000, expect: true, "key(of:)") { !ordering.key(of: id, values, in: l).isEmpty }
        report.append("key(of:): \(Int(key)) ns")
        let request = FetchRequest(entity: "Author", predicate: "age > 30 AND name BEGINSWITH 'A'")
        let cached = nanoseconds(20_000, expect: true, "compile (cached)") { (try? l.compiler.compile(request)) != nil }
        report.append("compile (cached): \(Int(cached)) ns")
        var n = 0
        let uncached = nanoseconds(1_000, expect: true, "compile (uncached)") {
            n += 1
            let fresh = FetchRequest(entity: "Author", predicate: "age > \(n) AND name BEGINSWITH 'A'")
            return (try? l.compiler.compile(fresh)) != nil
        }
        report.append("compile (uncached): \(Int(uncached)) ns")
        print("PERF " + report.joined(separator: "; "))
        if Self.strict { #expect(simple < 100, "simple comparison took \(simple) ns") }
    }

    /// SQL side: CPU time per row of a query over 20,000 rows, for the report.
    @Test func sqlFilterCost() throws {
        let l = try Library()
        try l.db.execute("BEGIN")
        var r = RandomSource(seed: 7)
        for i in 0..<20_000 {
            try l.insert(
                "Author",
                [
                    "name": .string(RandomLibrary.string(&r)), "age": .integer(Int64(i % 90)),
                    "rating": .double(Double(i % 50) / 10),
                ])
        }
        try l.db.execute("COMMIT")
        var report: [String] = []
        for predicate in [
            "age > 30", "name == 'Ana'", "name BEGINSWITH[c] 'a'", "name LIKE '*b*'", "name MATCHES '[a-z]+'",
            "age > 20 AND rating < 2.5 OR name == nil",
        ] {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
            var n = try l.sqlMatches(compiled).count
            let start = cpuNanoseconds()
            for _ in 0..<3 { n = try l.sqlMatches(compiled).count }
            let perRow = Double(cpuNanoseconds() - start) / 3 / 20_000
            #expect(n == l.memoryMatches(compiled).count)
            report.append("\(predicate): \(Int(perRow)) ns/row (\(n) of 20000 match)")
        }
        print("PERF SQL " + report.joined(separator: "; "))
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
