import Model
import Testing

@testable import Controllers

/// setRequest under the oracle: random request changes (predicate, sort, sections, window)
/// mixed with ordinary change cycles. After each, the notifications applied to a mirror by
/// the batch rule give exactly a fresh fetch of the new request, in wire order, with no
/// updates (no value changed) and the fewest moves.
@Suite struct SetRequestOracleTests {
    typealias Spec = OracleTests.Spec

    static let filters: [[TestFilter.Term]] = [
        [],
        [.init(path: ["price"], op: .greater, value: .integer(10))],
        [.init(path: ["price"], op: .greater, value: .integer(20))],
        [.init(path: ["year"], op: .notEqual, value: .integer(2002))],
        [.init(path: ["flag"], op: .equal, value: .bool(true))],
        [.init(path: ["author", "rank"], op: .less, value: .integer(5))],
        [
            .init(path: ["price"], op: .greater, value: .integer(10)),
            .init(path: ["flag"], op: .equal, value: .bool(true)),
        ],
    ]
    static let sorts: [[([String], Bool)]] = [
        [(["price"], true)], [(["title"], false)], [(["year"], true), (["price"], false)],
        [(["author", "name"], true), (["title"], true)], [(["flag"], true)],
        // With year sections, years descending: surviving sections change their order, so
        // some are deleted and inserted (there are no section moves).
        [(["year"], false), (["title"], true)],
    ]
    static let sections: [[String]?] = [nil, nil, ["year"], ["author", "name"], ["flag"]]

    static func randomSpec(_ rng: inout SeededRandom) -> Spec {
        let section = sections[rng.int(0..<sections.count)]
        return Spec(
            name: "random", filter: TestFilter(entity: "Book", terms: filters[rng.int(0..<filters.count)]),
            ordering: TestOrdering(entity: "Book", section: section, sort: sorts[rng.int(0..<sorts.count)]),
            section: section, offset: rng.chance(0.3) ? rng.int(1..<5) : 0,
            limit: rng.chance(0.3) ? rng.int(2..<12) : nil)
    }

    typealias Live = OracleTests.Harness

    @Test(arguments: [UInt64(21), 22, 23])
    func randomRequestChangesMatchFreshFetch(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = TestStore(model: Library.model)
        for _ in 0..<5 {
            store.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        for _ in 0..<40 { store.insert("Book", OracleTests.randomBookValues(&rng, store)) }
        _ = store.endCycle()
        var live: [Live] = []
        for _ in 0..<3 { live.append(try Live(Self.randomSpec(&rng), store)) }
        var stats = (changes: 0, moves: 0, sectionEvents: 0, inOrder: 0, narrowed: 0, bruteForced: 0)
        for step in 0..<iterations(default: 600) {
            if rng.chance(0.4) {
                let l = live[rng.int(0..<live.count)]
                var next = Self.randomSpec(&rng)
                let keepsOrder = rng.chance(0.4)
                if keepsOrder && rng.chance(0.5) {
                    // A refinement: the old conjuncts and more, which the held rows answer.
                    next.filter.terms = l.spec.filter.terms + next.filter.terms
                }
                let narrows = keepsOrder && l.spec.filter.terms.allSatisfy(next.filter.terms.contains)
                if keepsOrder {
                    // Only the predicate changes (sometimes the window too).
                    next.ordering = l.spec.ordering
                    next.section = l.spec.section
                    if rng.chance(0.7) { (next.offset, next.limit) = (l.spec.offset, l.spec.limit) }
                }
                let before = l.mirror
                let events = try l.controller.setRequest(
                    filter: next.filter, ordering: next.ordering,
                    sectionNameKeyPath: next.section?.joined(separator: "."), fetchLimit: next.limit,
                    fetchOffset: next.offset, keepsOrder: keepsOrder, narrows: narrows,
                    residual: narrows && rng.chance(0.5) ? residual(l.spec.filter, next.filter) : nil,
                    model: Library.model)
                l.spec = next
                let context = "seed \(seed) step \(step) setRequest"
                try check(l, events, store: store, context: context)
                stats.changes += 1
                if keepsOrder { stats.inOrder += 1 }
                if narrows { stats.narrowed += 1 }
                for event in events {
                    if case .object(let type, _, _, _) = event {
                        #expect(type != .update, "\(context): an update without a value change")
                        if type == .move { stats.moves += 1 }
                    }
                    if case .section = event { stats.sectionEvents += 1 }
                }
                let fresh = try l.fresh(store)
                if OracleTests.checkFewestMoves(events, before: before, fresh: fresh, store: store, context: context) {
                    stats.bruteForced += 1
                }
            } else {
                for _ in 0..<rng.int(1..<4) { OracleTests.randomOperation(&rng, store) }
                let changeSet = store.endCycle()
                for l in live {
                    try check(
                        l, l.controller.apply(changeSet), store: store, context: "seed \(seed) step \(step) cycle")
                }
            }
        }
        // Every promised refinement took the in-memory path (no query).
        #expect(live.map(\.controller.narrowedRequests).reduce(0, +) == stats.narrowed)
        #expect(
            stats.changes > 150 && stats.narrowed > 30 && stats.moves > 100 && stats.sectionEvents > 50
                && stats.bruteForced > 50, "\(stats)")
    }

    func check(_ l: Live, _ events: [ControllerEvent], store: TestStore, context: String) throws {
        #expect(wireOrderProblems(events) == [], "\(context)")
        try l.mirror.apply(events) { store.snapshot(of: $0) }
        let fresh = try l.fresh(store)
        #expect(l.mirror == fresh, "\(context): \(events)")
        #expect(l.controller.sections.map(\.name) == fresh.sections.map(\.name), "\(context)")
        #expect(l.controller.count == fresh.ids.count, "\(context)")
        l.mirror = fresh
    }
}

/// What a refinement adds: the new terms that are not old ones (RequestNarrowing.residual's job).
private func residual(_ old: TestFilter, _ new: TestFilter) -> TestFilter {
    TestFilter(entity: new.entity, terms: new.terms.filter { !old.terms.contains($0) })
}
