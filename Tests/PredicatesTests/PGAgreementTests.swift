import Model
import Testing

@testable import Predicates

/// AgreementTests against PostgreSQL: the same random libraries, predicates and sort
/// descriptors, loaded into a PostgreSQL schema; PostgreSQL selects the same ids as memory
/// and its ORDER BY sorts like `compare`, or the generator refuses (`PGUnsupported`) and the
/// refusal is one of the documented ones. Needs the cluster of `make test-postgres`.
/// Deterministic seeds; FETCHD_SOAK=N runs N times longer, FETCHD_SEED=N replays one seed.
@Suite(.serialized) struct PGAgreementTests {
    @Test func postgresAndMemorySelectTheSameObjects() throws {
        let pg = try PGLibrary(schema: "fetchd_agreement_filter")
        var cases = 0
        var refused = 0
        var hits = 0
        for seed in AgreementTests.onlySeed.map({ $0...$0 }) ?? 0...UInt64(40 * AgreementTests.soak - 1) {
            var r = RandomSource(seed: seed)
            let l = try RandomLibrary.library(&r)
            try pg.load(l)
            for _ in 0..<100 {
                r.variables = [:]
                r.listVariables = [:]
                let predicate = RandomLibrary.predicate(&r, depth: r.int(0...3))
                let compiled = try l.compiler.compile(
                    FetchRequest(
                        entity: "Author", predicate: predicate, variables: r.variables,
                        listVariables: r.listVariables))
                let selected: [Int64]
                do {
                    selected = try pg.matches(compiled)
                } catch let error as PGUnsupported {
                    #expect(error.construct.hasPrefix("MATCHES"), "seed \(seed): \(predicate): \(error)")
                    refused += 1
                    continue
                }
                let memory = l.memoryMatches(compiled)
                cases += 1
                hits += selected.count
                if selected != memory {
                    let sql = try PGQuery.filter(compiled.filter, alias: "t")
                    Issue.record(
                        "seed \(seed): \(predicate) \(r.variables) \(r.listVariables)\nPostgreSQL \(selected)\nmemory \(memory)\n\(sql.text) \(sql.bindings)"
                    )
                    return
                }
            }
        }
        // Refused: (?i), MATCHES[c] on classes and multi-scalar characters, a few percent at most.
        #expect(refused <= cases / 20, "refused \(refused) of \(cases + refused)")
        #expect(cases >= (AgreementTests.onlySeed == nil ? 3800 : 90), "refused \(refused)")
        #expect(hits > cases / 2, "predicates should select something often")
    }

    @Test func postgresOrderByAndMemorySortAgree() throws {
        let pg = try PGLibrary(schema: "fetchd_agreement_order")
        var cases = 0
        for seed in 0..<UInt64(300 * AgreementTests.soak) {
            var r = RandomSource(seed: 1_000_000 + seed)
            let l = try RandomLibrary.library(&r)
            try pg.load(l)
            for _ in 0..<10 {
                let sort = RandomLibrary.sortDescriptors(&r)
                let compiled = try l.compiler.compile(
                    FetchRequest(entity: "Author", sortDescriptors: sort),
                    sectionNameKeyPath: r.chance(0.3) ? r.pick(["active", "name", "mentor.name"]) : nil)
                let sql = try pg.order(compiled)
                let memory = l.memoryOrder(compiled)
                cases += 1
                if sql.ids != memory {
                    Issue.record("seed \(seed): \(sort)\nPostgreSQL \(sql.ids)\nmemory \(memory)")
                    return
                }
                for (n, id) in sql.ids.enumerated() {
                    let oid = ObjectID(entity: "Author", number: id)
                    let fromMemory = compiled.ordering.key(of: oid, l.objects[oid]!, in: l)
                    if compiled.ordering.compare(sql.keys[n], fromMemory) != 0 || sql.keys[n] != fromMemory {
                        Issue.record("seed \(seed): PostgreSQL key \(sql.keys[n]) != key(of:) \(fromMemory)")
                        return
                    }
                }
            }
        }
        #expect(cases >= 3000)
    }
}
