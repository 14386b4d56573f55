import Foundation
import Model
import Testing

@testable import Predicates

/// Big flat predicates (thousands of OR/AND terms, long IN lists) compile and run in SQL and
/// in memory with the same answers; past the documented size limit they are a clear error
/// (protocol.md §7.4). With FETCHD_BENCH=1 (best in a release build) it prints size-vs-time
/// figures as `PREDSIZE` lines.
@Suite struct PredicateSizeTests {
    static func shapes(_ n: Int) -> [(String, String)] {
        [
            ("OR", (0..<n).map { "age == \($0)" }.joined(separator: " OR ")),
            ("AND", (0..<n).map { "age != \($0 + 26)" }.joined(separator: " AND ")),
            ("IN", "age IN {" + (0..<n).map { String($0 + 26) }.joined(separator: ", ") + "}"),
        ]
    }

    @Test func flatPredicatesOfThousandsOfTermsAgreeInSQLAndMemory() throws {
        let l = try Sample.library()
        // Ages in the sample: 30, 25, nil, 40, 30.
        let expected = ["OR": [1, 2, 4, 5], "AND": [2, 3], "IN": [1, 4, 5]] as [String: [Int64]]
        for (shape, text) in Self.shapes(5000) {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: text))
            let sql = try l.sqlMatches(compiled)
            #expect(sql == l.memoryMatches(compiled), "\(shape)")
            #expect(sql == expected[shape], "\(shape)")
        }
    }

    @Test func thePredicateSizeLimitIsASyntaxErrorNamingIt() throws {
        let limit = PredicateParser.maxTerms
        _ = try PredicateParser.parse("age IN {" + (0..<(limit - 1)).map(String.init).joined(separator: ",") + "}")
        let over = "age IN {" + (0..<limit).map(String.init).joined(separator: ",") + "}"
        do {
            _ = try PredicateParser.parse(over)
            Issue.record("\(limit + 1) terms parsed")
        } catch {
            #expect(error.kind == .predicateSyntax)
            #expect(error.detail("expected") == .string("at most 100000 terms"))
            // Where the first term past the limit starts: after "age IN {0,1,...,99998,".
            let offset = Int64(over.utf8.count - "99999}".utf8.count)
            #expect(error.detail("offset") == .int(offset))
        }
        let terms = (0...limit).map { "age == \($0)" }.joined(separator: " OR ")
        #expect(throws: EngineError.self) { try PredicateParser.parse(terms) }
    }

    /// FETCHD_BENCH=1: parse, bind + compile, one SQL run and one in-memory pass per shape/size.
    @Test func sizeVersusTime() throws {
        guard ProcessInfo.processInfo.environment["FETCHD_BENCH"] != nil else { return }
        let l = try Sample.library()
        func seconds(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        for n in [1000, 10_000, 50_000] {
            for (shape, text) in Self.shapes(n) {
                let parse = try seconds { _ = try PredicateParser.parse(text) }
                var compiled: CompiledRequest?
                let compile = try seconds {
                    compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: text))
                }
                let sql = try seconds { _ = try l.sqlMatches(compiled!) }
                let memory = seconds { _ = l.memoryMatches(compiled!) }
                print(
                    String(
                        format: "PREDSIZE %@ %d terms: parse %.1f ms, compile %.1f ms, SQL %.1f ms, memory %.1f ms",
                        shape, n, parse * 1000, compile * 1000, sql * 1000, memory * 1000))
            }
        }
    }
}
