import Model
import Testing

@testable import Controllers

/// THE ORACLE: thousands of random change cycles against several controllers at once.
/// After every cycle each controller's notifications, applied to a mirror by the batch rule,
/// must give exactly a fresh fetch (ids, values, sections); the wire order, the will/did
/// pairing and the "nothing for untouched objects" rule are checked, and small cycles are
/// checked against a brute-force search for the fewest moves.
@Suite struct OracleTests {
    struct Spec {
        var name: String
        var filter: TestFilter
        var ordering: TestOrdering
        var section: [String]?
        var offset = 0
        var limit: Int?
    }

    static let specs: [Spec] = [
        Spec(
            name: "byPrice", filter: TestFilter(entity: "Book"),
            ordering: TestOrdering(entity: "Book", sort: [(["price"], true)])),
        Spec(
            name: "yearSections",
            filter: TestFilter(entity: "Book", terms: [.init(path: ["price"], op: .greater, value: .integer(10))]),
            ordering: TestOrdering(entity: "Book", section: ["year"], sort: [(["title"], false)]), section: ["year"]),
        Spec(
            name: "window", filter: TestFilter(entity: "Book"),
            ordering: TestOrdering(entity: "Book", sort: [(["year"], true), (["price"], false)]), offset: 3, limit: 6),
        Spec(
            name: "byAuthorName", filter: TestFilter(entity: "Book"),
            ordering: TestOrdering(entity: "Book", section: ["author", "name"], sort: [(["title"], true)]),
            section: ["author", "name"]),
        Spec(
            name: "rankedAuthors",
            filter: TestFilter(
                entity: "Book", terms: [.init(path: ["author", "rank"], op: .less, value: .integer(5))]),
            ordering: TestOrdering(entity: "Book", sort: [(["author", "name"], false), (["price"], true)]), limit: 7),
        Spec(
            name: "flagOffset",
            filter: TestFilter(entity: "Book", terms: [.init(path: ["flag"], op: .equal, value: .bool(true))]),
            ordering: TestOrdering(entity: "Book", sort: [(["title"], true)]), offset: 2),
        Spec(
            name: "authors", filter: TestFilter(entity: "Author"),
            ordering: TestOrdering(entity: "Author", section: ["rank"], sort: [(["name"], true)]), section: ["rank"],
            offset: 1, limit: 5),
        Spec(
            name: "sectionWindow", filter: TestFilter(entity: "Book"),
            ordering: TestOrdering(entity: "Book", section: ["year"], sort: [(["price"], false)]), section: ["year"],
            offset: 4, limit: 8),
        Spec(
            name: "yearDescending",
            filter: TestFilter(entity: "Book", terms: [.init(path: ["year"], op: .notEqual, value: .integer(2002))]),
            ordering: TestOrdering(entity: "Book", section: ["year"], sort: [(["year"], false), (["flag"], true)]),
            section: ["year"],
            limit: 12),
    ]

    final class Harness {
        /// A var: setRequest tests change a harness's request.
        var spec: Spec
        let controller: FetchedResultsController
        var mirror: Mirror
        init(_ spec: Spec, _ store: TestStore) throws {
            self.spec = spec
            controller = FetchedResultsController(
                name: spec.name, source: store, filter: spec.filter, ordering: spec.ordering,
                sectionNameKeyPath: spec.section?.joined(separator: "."), fetchLimit: spec.limit,
                fetchOffset: spec.offset, model: Library.model)
            try controller.performFetch()
            mirror = try freshResults(
                store, filter: spec.filter, ordering: spec.ordering, sectioned: spec.section != nil,
                offset: spec.offset, limit: spec.limit)
        }
        func fresh(_ store: TestStore) throws -> Mirror {
            try freshResults(
                store, filter: spec.filter, ordering: spec.ordering, sectioned: spec.section != nil,
                offset: spec.offset, limit: spec.limit)
        }
    }

    static func randomBookValues(_ rng: inout SeededRandom, _ store: TestStore) -> Snapshot {
        let authors = store.ids(of: "Author")
        return [
            "title": .string(Library.titles[rng.int(0..<Library.titles.count)]),
            "price": rng.chance(0.1) ? .null : .integer(Int64(rng.int(0..<30))),
            "year": .integer(Int64(2000 + rng.int(0..<5))),
            "flag": .bool(rng.chance(0.5)),
            "note": .string("n\(rng.int(0..<3))"),
            "author": authors.isEmpty || rng.chance(0.1) ? .null : .object(authors[rng.int(0..<authors.count)]),
        ]
    }

    /// One random operation on the store.
    static func randomOperation(_ rng: inout SeededRandom, _ store: TestStore) {
        let books = store.ids(of: "Book")
        let authors = store.ids(of: "Author")
        let roll = rng.int(0..<100)
        switch roll {
        case 0..<18 where books.count < 70 || roll < 6:
            store.insert("Book", randomBookValues(&rng, store))
        case 18..<28 where !books.isEmpty:
            store.delete(books[rng.int(0..<books.count)])
        case 28..<70 where !books.isEmpty:
            let id = books[rng.int(0..<books.count)]
            let fresh = randomBookValues(&rng, store)
            let key = ["title", "price", "year", "flag", "note", "author"][rng.int(0..<6)]
            // Sometimes write the value it already has: no change.
            store.set(id, key, rng.chance(0.15) ? store.snapshot(of: id)![key]! : fresh[key]!)
        case 70..<76 where authors.count < 8:
            store.insert(
                "Author",
                [
                    "name": .string(Library.names[rng.int(0..<Library.names.count)]),
                    "rank": .integer(Int64(rng.int(0..<10))),
                ])
        case 76..<88 where !authors.isEmpty:
            store.set(
                authors[rng.int(0..<authors.count)], "name", .string(Library.names[rng.int(0..<Library.names.count)]))
        case 88..<96 where !authors.isEmpty:
            store.set(authors[rng.int(0..<authors.count)], "rank", .integer(Int64(rng.int(0..<10))))
        case 96..<100 where authors.count > 2:
            store.delete(authors[rng.int(0..<authors.count)])
        default:
            if !books.isEmpty { store.set(books[rng.int(0..<books.count)], "note", .string("n\(rng.int(0..<3))")) }
        }
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func randomCyclesMatchFreshFetch(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = TestStore(model: Library.model)
        for _ in 0..<5 {
            store.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        for _ in 0..<40 { store.insert("Book", Self.randomBookValues(&rng, store)) }
        _ = store.endCycle()
        let harnesses = try Self.specs.map { try Harness($0, store) }
        var stats = (events: 0, moves: 0, bruteForced: 0, windowEdges: 0)
        let cycles = iterations(default: 1000)
        for cycle in 0..<cycles {
            let ops = rng.chance(0.1) ? rng.int(6..<16) : rng.int(0..<4)
            for _ in 0..<ops { Self.randomOperation(&rng, store) }
            let changeSet = store.endCycle()
            let byID = Dictionary(changeSet.changes.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            let oldView = OldView(current: store, changes: byID)
            for h in harnesses {
                let before = h.mirror
                // Both paths must give the same notifications: rebuild a quarter of the time.
                h.controller.rebuildOverride = rng.chance(0.25) ? true : false
                let events = h.controller.apply(changeSet)
                let context = "seed \(seed) cycle \(cycle) controller \(h.spec.name)"
                #expect(wireOrderProblems(events) == [], "\(context)")
                do { try h.mirror.apply(events) { store.snapshot(of: $0) } } catch {
                    Issue.record("\(context): \(error)")
                    return
                }
                let fresh = try h.fresh(store)
                if h.mirror != fresh {
                    Issue.record(
                        "\(context): mirror \(h.mirror.sections.map { ($0.name, $0.rows.map(\.id.number)) }) != fresh \(fresh.sections.map { ($0.name, $0.rows.map(\.id.number)) }); events \(events)"
                    )
                    return
                }
                // The controller's own answers agree with the fresh fetch.
                #expect(h.controller.sections.map(\.name) == fresh.sections.map(\.name), "\(context)")
                #expect(h.controller.sections.map(\.numberOfObjects) == fresh.sections.map(\.rows.count), "\(context)")
                #expect(h.controller.count == fresh.ids.count)
                for (s, section) in fresh.sections.enumerated() {
                    #expect(try h.controller.ids(section: s) == section.rows.map(\.id), "\(context)")
                    for (r, row) in section.rows.enumerated() where (r + cycle) % 5 == 0 {
                        #expect(h.controller.indexPath(of: row.id) == IndexPath(section: s, row: r), "\(context)")
                        #expect(try h.controller.object(at: IndexPath(section: s, row: r)) == row.id)
                    }
                }
                // Nothing for untouched objects: every reported object changed itself, or
                // what the controller reads of it changed, or (insert/delete only) it was
                // pushed across a window edge.
                var readChanges = 0
                for event in events {
                    guard case .object(let type, let id, _, _) = event else { continue }
                    stats.events += 1
                    if type == .move { stats.moves += 1 }
                    if byID[id] != nil { continue }
                    let values = store.snapshot(of: id)!
                    let readChanged =
                        h.spec.ordering.key(of: id, values, in: oldView)
                        != h.spec.ordering.key(of: id, values, in: store)
                        || h.spec.filter.matches(id, values, in: oldView)
                            != h.spec.filter.matches(id, values, in: store)
                    let windowed = h.spec.offset > 0 || h.spec.limit != nil
                    if readChanged { readChanges += 1 }
                    if !readChanged {
                        #expect(
                            windowed && (type == .insert || type == .delete),
                            "\(context): untouched \(id) reported \(type)")
                        stats.windowEdges += 1
                    }
                }
                // A cycle that changed nothing a client sees (ids, values, sections) sends
                // nothing, unless a value read through a key path changed (then updates).
                if before == fresh {
                    #expect(
                        events.isEmpty || readChanges == events.count - 2,
                        "\(context): events for a no-op cycle: \(events)")
                }
                if Self.checkFewestMoves(events, before: before, fresh: fresh, store: store, context: context) {
                    stats.bruteForced += 1
                }
            }
        }
        // The random walk really exercised what it claims to.
        #expect(stats.moves > 100 && stats.windowEdges > 100 && stats.bruteForced > 500, "\(stats)")
    }

    /// Tries every choice of which reported survivors move (up to 10 of them) and checks
    /// that the engine's choice is valid, has the fewest moves, and among those keeps the
    /// rows earliest in new order. Returns whether the check ran.
    static func checkFewestMoves(
        _ events: [ControllerEvent], before: Mirror, fresh: Mirror, store: TestStore,
        context: String
    ) -> Bool {
        var survivors: [(id: ObjectID, old: IndexPath, new: IndexPath, moved: Bool)] = []
        for case .object(let type, let id, let old?, let new?) in events {
            survivors.append((id, old, new, type == .move))
        }
        guard !survivors.isEmpty, survivors.count <= 10 else { return false }
        survivors.sort { $0.new < $1.new }
        let others = events.filter {
            if case .object(.move, _, _, _) = $0 { return false }
            if case .object(.update, _, _, _) = $0 { return false }
            return true
        }
        var best: (moves: Int, stayers: [IndexPath])?
        for mask in 0..<(1 << survivors.count) {
            var trial = others
            trial.removeLast()
            var stayers: [IndexPath] = []
            for (i, s) in survivors.enumerated() {
                let moves = mask & (1 << i) != 0
                trial.append(.object(moves ? .move : .update, s.id, indexPath: s.old, newIndexPath: s.new))
                if !moves { stayers.append(s.new) }
            }
            var mirror = before
            guard (try? mirror.apply(trial) { store.snapshot(of: $0) }) != nil, mirror == fresh else { continue }
            let count = mask.nonzeroBitCount
            if let b = best, b.moves < count || (b.moves == count && !stayers.lexicographicallyPrecedes(b.stayers)) {
                continue
            }
            best = (count, stayers)
        }
        let engineStayers = survivors.filter { !$0.moved }.map(\.new)
        #expect(
            best?.moves == survivors.filter(\.moved).count,
            "\(context): not the fewest moves: \(events) before \(before.sections.map { ($0.name, $0.rows.map(\.id.number)) }) after \(fresh.sections.map { ($0.name, $0.rows.map(\.id.number)) })"
        )
        #expect(best?.stayers == engineStayers, "\(context): tie not resolved by new order")
        return true
    }
}
