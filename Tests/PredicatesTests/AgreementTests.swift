import Model
import Testing

@testable import Predicates

/// The property that makes controllers correct: for random data and random predicates over
/// the whole grammar, SQL and in-memory evaluation select the same ids, and ORDER BY sorts
/// like `ObjectOrdering.compare`. Deterministic seeds; FETCHD_SOAK=N runs N times longer.
@Suite struct AgreementTests {
    static let soak: Int = {
        guard let text = getenv("FETCHD_SOAK").map({ String(cString: $0) }), let n = Int(text), n > 0 else { return 1 }
        return n
    }()

    /// FETCHD_SEED=N replays one seed of the filter test.
    static let onlySeed: UInt64? = getenv("FETCHD_SEED").flatMap { UInt64(String(cString: $0)) }

    @Test func sqlAndMemorySelectTheSameObjects() throws {
        var cases = 0
        var hits = 0
        for seed in Self.onlySeed.map({ $0...$0 }) ?? 0...UInt64(40 * Self.soak - 1) {
            var r = RandomSource(seed: seed)
            let l = try RandomLibrary.library(&r)
            for _ in 0..<100 {
                r.variables = [:]
                r.listVariables = [:]
                let predicate = RandomLibrary.predicate(&r, depth: r.int(0...3))
                let compiled: CompiledRequest
                do {
                    compiled = try l.compiler.compile(
                        FetchRequest(
                            entity: "Author", predicate: predicate, variables: r.variables,
                            listVariables: r.listVariables))
                } catch {
                    Issue.record("seed \(seed): generator made an invalid predicate \(predicate): \(error)")
                    continue
                }
                let sql = try l.sqlMatches(compiled)
                let memory = l.memoryMatches(compiled)
                cases += 1
                hits += sql.count
                if sql != memory {
                    Issue.record(
                        "seed \(seed): \(predicate) \(r.variables) \(r.listVariables)\nSQL \(sql)\nmemory \(memory)\n\(compiled.filter.sql(alias: "t").text)"
                    )
                    return
                }
            }
        }
        #expect(cases >= (Self.onlySeed == nil ? 4000 : 100))
        #expect(hits > cases / 2, "predicates should select something often")
    }

    @Test func orderByAndMemorySortAgree() throws {
        var cases = 0
        for seed in 0..<UInt64(300 * Self.soak) {
            var r = RandomSource(seed: 1_000_000 + seed)
            let l = try RandomLibrary.library(&r)
            for _ in 0..<10 {
                let sort = RandomLibrary.sortDescriptors(&r)
                let compiled = try l.compiler.compile(
                    FetchRequest(entity: "Author", sortDescriptors: sort),
                    sectionNameKeyPath: r.chance(0.3) ? r.pick(["active", "name", "mentor.name"]) : nil)
                let sql = try l.sqlOrder(compiled)
                let memory = l.memoryOrder(compiled)
                cases += 1
                if sql.ids != memory {
                    Issue.record("seed \(seed): \(sort)\nSQL \(sql.ids)\nmemory \(memory)")
                    return
                }
                for (n, id) in sql.ids.enumerated() {
                    let oid = ObjectID(entity: "Author", number: id)
                    let fromMemory = compiled.ordering.key(of: oid, l.objects[oid]!, in: l)
                    if compiled.ordering.compare(sql.keys[n], fromMemory) != 0
                        || sql.keys[n].map(\.kind) != fromMemory.map(\.kind)
                    {
                        Issue.record("seed \(seed): key(fromColumns:) \(sql.keys[n]) != key(of:) \(fromMemory)")
                        return
                    }
                }
            }
        }
        #expect(cases >= 3000)
    }
}

extension Value {
    /// The case name, to check keys decode to the same kinds from SQL as from memory.
    fileprivate var kind: String { String(describing: self).prefix { $0 != "(" }.description }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
