import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// The oracle over the real engine: a SQLite store, contexts (main, a child that saves into
/// it, and a sibling root whose saves merge into main and main's into it), requests compiled
/// from predicate text. Cycles mix mutations, child saves, root saves (merges), rollbacks at
/// both levels. After every cycle each controller's mirror must equal a fresh fetch of its
/// context (SQL plus the context's overlay).
@Suite struct ContextOracleTests {
    struct Spec {
        var name: String
        var context: String
        var request: FetchRequest
        var section: String?
    }

    static let specs: [Spec] = [
        Spec(
            name: "byPrice", context: "main",
            request: FetchRequest(entity: "Book", sortDescriptors: [SortDescriptor(key: "price")])),
        Spec(
            name: "yearSections", context: "main",
            request: FetchRequest(
                entity: "Book", predicate: "price > 10",
                sortDescriptors: [SortDescriptor(key: "title", ascending: false, comparator: .caseInsensitiveCompare)]),
            section: "year"),
        Spec(
            name: "window", context: "main",
            request: FetchRequest(
                entity: "Book",
                sortDescriptors: [SortDescriptor(key: "year"), SortDescriptor(key: "price", ascending: false)],
                fetchLimit: 6, fetchOffset: 3)),
        Spec(
            name: "byAuthorName", context: "main",
            request: FetchRequest(
                entity: "Book", sortDescriptors: [SortDescriptor(key: "title", comparator: .localizedStandardCompare)]),
            section: "author.name"),
        Spec(
            name: "rankedAuthors", context: "main",
            request: FetchRequest(
                entity: "Book", predicate: "author.rank < 5",
                sortDescriptors: [SortDescriptor(key: "author.name", ascending: false), SortDescriptor(key: "price")],
                fetchLimit: 7)),
        Spec(
            name: "flaggedAuthors", context: "main",
            request: FetchRequest(
                entity: "Author", predicate: "ANY books.flag == YES",
                sortDescriptors: [SortDescriptor(key: "name", comparator: .caseInsensitiveCompare)])),
        Spec(
            name: "authorsByRank", context: "main",
            request: FetchRequest(
                entity: "Author", sortDescriptors: [SortDescriptor(key: "name")], fetchLimit: 5, fetchOffset: 1),
            section: "rank"),
        Spec(
            name: "childCheap", context: "edit",
            request: FetchRequest(
                entity: "Book", predicate: "price < 15 OR price == nil",
                sortDescriptors: [SortDescriptor(key: "flag"), SortDescriptor(key: "title")]),
            section: "flag"),
        Spec(
            name: "siblingByYear", context: "other",
            request: FetchRequest(
                entity: "Book", predicate: "year >= 2002",
                sortDescriptors: [SortDescriptor(key: "price", ascending: false), SortDescriptor(key: "title")],
                fetchLimit: 8),
            section: "author.name"),
        Spec(
            name: "siblingAuthors", context: "other",
            request: FetchRequest(
                entity: "Author", sortDescriptors: [SortDescriptor(key: "rank"), SortDescriptor(key: "name")])),
    ]

    final class Harness {
        let spec: Spec
        let context: Context
        let compiled: CompiledRequest
        let controller: FetchedResultsController
        var mirror = Mirror()
        init(_ spec: Spec, _ graph: ObjectGraph, _ compiler: RequestCompiler) throws {
            self.spec = spec
            context = try graph.context(spec.context)
            compiled = try compiler.compile(spec.request, sectionNameKeyPath: spec.section)
            controller = FetchedResultsController(
                name: spec.name, source: context, request: compiled, model: Library.model)
            try controller.performFetch()
            mirror = try fresh()
        }
        func fresh() throws -> Mirror {
            try freshResults(
                context, filter: compiled.filter, ordering: compiled.ordering, sectioned: spec.section != nil,
                offset: spec.request.fetchOffset, limit: spec.request.fetchLimit)
        }
    }

    static func bookValues(_ rng: inout SeededRandom, authors: [ObjectID]) -> Snapshot {
        [
            "title": .string(Library.titles[rng.int(0..<Library.titles.count)]),
            "price": rng.chance(0.1) ? .null : .integer(Int64(rng.int(0..<30))),
            "year": .integer(Int64(2000 + rng.int(0..<5))),
            "flag": .bool(rng.chance(0.5)),
            "note": .string("n\(rng.int(0..<3))"),
            "author": authors.isEmpty || rng.chance(0.1) ? .null : .object(authors[rng.int(0..<authors.count)]),
        ]
    }

    /// One random mutation through `context`.
    static func mutate(_ context: Context, _ rng: inout SeededRandom) throws {
        let books = try context.fetch(entity: "Book")
        let authors = try context.fetch(entity: "Author")
        let roll = rng.int(0..<100)
        switch roll {
        case 0..<18 where books.count < 60 || roll < 5:
            _ = try context.insert("Book", bookValues(&rng, authors: authors))
        case 18..<28 where !books.isEmpty:
            try context.delete(books[rng.int(0..<books.count)])
        case 28..<72 where !books.isEmpty:
            let id = books[rng.int(0..<books.count)]
            let key = ["title", "price", "year", "flag", "note", "author"][rng.int(0..<6)]
            try context.update(id, [key: bookValues(&rng, authors: authors)[key]!])
        case 72..<78 where authors.count < 8:
            _ = try context.insert(
                "Author",
                [
                    "name": .string(Library.names[rng.int(0..<Library.names.count)]),
                    "rank": .integer(Int64(rng.int(0..<10))),
                ])
        case 78..<90 where !authors.isEmpty:
            try context.update(
                authors[rng.int(0..<authors.count)], ["name": .string(Library.names[rng.int(0..<Library.names.count)])])
        case 90..<96 where !authors.isEmpty:
            try context.update(authors[rng.int(0..<authors.count)], ["rank": .integer(Int64(rng.int(0..<10)))])
        case 96..<100 where authors.count > 2:
            try context.delete(authors[rng.int(0..<authors.count)])
        default:
            break
        }
    }

    @Test(arguments: [UInt64(21), 22])
    func randomCyclesOverContextsMatchFreshFetch(seed: UInt64) throws {
        try Self.randomCycles(
            seed: seed, store: try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) })
    }

    /// The oracle over any (empty) store.
    static func randomCycles(seed: UInt64, store: any Store) throws {
        var rng = SeededRandom(seed: seed)
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        let edit = try graph.createContext("edit", parent: ObjectGraph.mainContext)
        // The sibling wins its conflicts, so both roots keep saving into one store.
        let other = try graph.createContext("other", mergePolicy: .objectTrump)
        for _ in 0..<5 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<30 { _ = try main.insert("Book", Self.bookValues(&rng, authors: authors)) }
        _ = try main.save()
        graph.processPendingChanges()
        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try Self.specs.map { try Harness($0, graph, compiler) }
        var reported = 0
        var cycle = 0
        // Each change set is applied as it is delivered, as the server does: the context's
        // view then is the set's `after`, which the object values sent with events come from.
        var paths = SeededRandom(seed: seed ^ 0xA5A5)
        graph.observeChangeSets { changeSet in
            for h in harnesses where h.context.name == changeSet.context {
                // Both paths must give the same notifications: rebuild a quarter of the time.
                h.controller.rebuildOverride = paths.chance(0.25)
                let events = h.controller.apply(changeSet)
                #expect(wireOrderProblems(events) == [], "seed \(seed) cycle \(cycle) \(h.spec.name)")
                do { try h.mirror.apply(events) { h.context.snapshot(of: $0) } } catch {
                    Issue.record("seed \(seed) cycle \(cycle) \(h.spec.name): \(error)")
                }
                reported += events.count
            }
        }
        for c in 0..<iterations(default: 300) {
            cycle = c
            let ops = rng.chance(0.1) ? rng.int(5..<12) : rng.int(1..<4)
            let roll = rng.int(0..<10)
            let target = roll < 3 ? edit : roll < 5 ? other : main
            // A refused mutation or save changes nothing; the cycle goes on.
            for _ in 0..<ops { try? Self.mutate(target, &rng) }
            if target === edit && rng.chance(0.5) { _ = try? edit.save() }
            if target === other && rng.chance(0.4) { _ = try? other.save() }
            if rng.chance(0.05) { _ = try? main.save() }
            if rng.chance(0.04) { try? (rng.chance(0.5) ? main : edit).rollback() }
            if rng.chance(0.02) { try? other.rollback() }
            graph.processPendingChanges()
            for h in harnesses {
                let fresh = try h.fresh()
                guard h.mirror == fresh else {
                    Issue.record(
                        "seed \(seed) cycle \(cycle) \(h.spec.name): mirror \(h.mirror.sections.map { ($0.name, $0.rows.map(\.id.number)) }) != fresh \(fresh.sections.map { ($0.name, $0.rows.map(\.id.number)) })"
                    )
                    return
                }
                #expect(h.controller.sections.map(\.name) == fresh.sections.map(\.name))
            }
        }
        #expect(reported > 1000)
    }
}
