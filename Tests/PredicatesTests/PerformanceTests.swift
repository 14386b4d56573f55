import Testing
import Model
@testable import Predicates

/// Costs of the controller hot path. Prints ns per call; in a release build
/// (`swift test -c release -Xswiftc -enable-testing --filter PerformanceTests`) with
/// FETCHD_PERF_STRICT=1 it also holds a simple comparison to 100 ns.
@Suite struct PerformanceTests {
    private static let strict = getenv("FETCHD_PERF_STRICT") != nil

    /// Thread CPU time per call, the best of five rounds: the machine is shared, and time
    /// spent descheduled is not the code's cost.
    private func nanoseconds(_ iterations: Int, _ body: () -> Bool) -> Double {
        var hits = 0
        var best = Double.infinity
        for _ in 0..<5 {
            let start = cpuNanoseconds()
            for _ in 0..<iterations where body() { hits += 1 }
            best = min(best, Double(cpuNanoseconds() - start) / Double(iterations))
        }
        #expect(hits >= 0)
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
        report.append("baseline (snapshot lookup): \(Int(nanoseconds(100_000) { values["age"] != nil })) ns")
        for predicate in ["age > 30", "name == 'Ana'", "name BEGINSWITH[c] 'an'", "age > 20 AND name != nil",
                          "mentor.name == 'Ana'", "ANY books.pages > 200", "name LIKE 'A*a'"] {
            let filter = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate)).filter
            _ = filter.matches(id, values, in: l)
            let ns = nanoseconds(100_000) { filter.matches(id, values, in: l) }
            if predicate == "age > 30" { simple = ns }
            report.append("\(predicate): \(Int(ns)) ns")
        }
        let ordering = try l.compiler.compile(FetchRequest(entity: "Author", sortDescriptors: [
            SortDescriptor(key: "name", comparator: .caseInsensitiveCompare), SortDescriptor(key: "age")])).ordering
        let a = ordering.key(of: id, values, in: l)
        let b2 = ObjectID(entity: "Author", number: 2)
        let b = ordering.key(of: b2, l.objects[b2]!, in: l)
        report.append("compare(name[c], age): \(Int(nanoseconds(100_000) { ordering.compare(a, b) < 0 })) ns")
        report.append("key(of:): \(Int(nanoseconds(100_000) { !ordering.key(of: id, values, in: l).isEmpty })) ns")
        let request = FetchRequest(entity: "Author", predicate: "age > 30 AND name BEGINSWITH 'A'")
        report.append("compile (cached): \(Int(nanoseconds(20_000) { (try? l.compiler.compile(request)) != nil })) ns")
        var n = 0
        report.append("compile (uncached): \(Int(nanoseconds(1_000) { n += 1; return (try? l.compiler.compile(FetchRequest(entity: "Author", predicate: "age > \(n) AND name BEGINSWITH 'A'"))) != nil })) ns")
        print("PERF " + report.joined(separator: "; "))
        #expect(simple < (Self.strict ? 100 : 20_000), "simple comparison took \(simple) ns")
    }

    /// SQL side: CPU time per row of a query over 20,000 rows, for the report.
    @Test func sqlFilterCost() throws {
        let l = try Library()
        try l.db.execute("BEGIN")
        var r = RandomSource(seed: 7)
        for i in 0..<20_000 {
            try l.insert("Author", ["name": .string(RandomLibrary.string(&r)), "age": .integer(Int64(i % 90)),
                                    "rating": .double(Double(i % 50) / 10)])
        }
        try l.db.execute("COMMIT")
        var report: [String] = []
        for predicate in ["age > 30", "name == 'Ana'", "name BEGINSWITH[c] 'a'", "name LIKE '*b*'", "name MATCHES '[a-z]+'",
                          "age > 20 AND rating < 2.5 OR name == nil"] {
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
