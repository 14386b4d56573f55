import Testing
import Model
@testable import Predicates

/// Costs of the controller hot path. Prints ns per call; in a release build
/// (`swift test -c release -Xswiftc -enable-testing --filter PerformanceTests`) with
/// FETCHD_PERF_STRICT=1 it also holds a simple comparison to 100 ns.
@Suite struct PerformanceTests {
    private static let strict = getenv("FETCHD_PERF_STRICT") != nil

    private func nanoseconds(_ iterations: Int, _ body: () -> Bool) -> Double {
        var hits = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<iterations where body() { hits += 1 } }
        #expect(hits >= 0)
        let (s, atto) = elapsed.components
        return (Double(s) * 1e9 + Double(atto) / 1e9) / Double(iterations)
    }

    @Test func inMemoryEvaluationCost() throws {
        let l = try Sample.library()
        let id = ObjectID(entity: "Author", number: 1)
        let values = l.objects[id]!
        var report: [String] = []
        var simple = 0.0
        for predicate in ["age > 30", "name == 'Ana'", "name BEGINSWITH[c] 'an'", "age > 20 AND name != nil",
                          "mentor.name == 'Ana'", "ANY books.pages > 200", "name LIKE 'A*a'"] {
            let filter = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate)).filter
            _ = filter.matches(id, values, in: l)
            let ns = nanoseconds(200_000) { filter.matches(id, values, in: l) }
            if predicate == "age > 30" { simple = ns }
            report.append("\(predicate): \(Int(ns)) ns")
        }
        let ordering = try l.compiler.compile(FetchRequest(entity: "Author", sortDescriptors: [
            SortDescriptor(key: "name", comparator: .caseInsensitiveCompare), SortDescriptor(key: "age")])).ordering
        let a = ordering.key(of: id, values, in: l)
        let b2 = ObjectID(entity: "Author", number: 2)
        let b = ordering.key(of: b2, l.objects[b2]!, in: l)
        report.append("compare(name[c], age): \(Int(nanoseconds(200_000) { ordering.compare(a, b) < 0 })) ns")
        report.append("key(of:): \(Int(nanoseconds(200_000) { !ordering.key(of: id, values, in: l).isEmpty })) ns")
        let request = FetchRequest(entity: "Author", predicate: "age > 30 AND name BEGINSWITH 'A'")
        report.append("compile (cached): \(Int(nanoseconds(50_000) { (try? l.compiler.compile(request)) != nil })) ns")
        var n = 0
        report.append("compile (uncached): \(Int(nanoseconds(5_000) { n += 1; return (try? l.compiler.compile(FetchRequest(entity: "Author", predicate: "age > \(n) AND name BEGINSWITH 'A'"))) != nil })) ns")
        print("PERF " + report.joined(separator: "; "))
        #expect(simple < (Self.strict ? 100 : 20_000), "simple comparison took \(simple) ns")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
