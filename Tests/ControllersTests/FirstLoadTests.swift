import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// A cycle that fills a controller holding nothing (a bulk insert into an empty entity) takes
/// the rebuild's shortcut: every visible row an insert, every visible section too. It must
/// send exactly what the incremental path sends for the same cycle, for sections, windows
/// and predicates, and bring the mirror to a fresh fetch.
@Suite struct FirstLoadTests {
    @Test(arguments: [UInt64(61), 62, 63, 64])
    func aFirstLoadSendsWhatTheIncrementalPathSends(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        let section: String? = rng.chance(0.5) ? "year" : nil
        let window: (limit: Int?, offset: Int) = rng.chance(0.5) ? (rng.int(1..<8), rng.int(0..<5)) : (nil, 0)
        let request = try RequestCompiler(model: Library.model).compile(
            FetchRequest(
                entity: "Book", predicate: rng.chance(0.5) ? "price > 8" : nil,
                sortDescriptors: [SortDescriptor(key: "title"), SortDescriptor(key: "price", ascending: false)],
                fetchLimit: window.limit, fetchOffset: window.offset),
            sectionNameKeyPath: section)
        let shortcut = FetchedResultsController(name: "s", source: main, request: request, model: Library.model)
        let incremental = FetchedResultsController(name: "i", source: main, request: request, model: Library.model)
        shortcut.rebuildOverride = true
        incremental.rebuildOverride = false
        try shortcut.performFetch()
        try incremental.performFetch()
        func fresh() throws -> Mirror {
            try freshResults(
                main, filter: request.filter, ordering: request.ordering, sectioned: section != nil,
                offset: window.offset, limit: window.limit)
        }
        var mirror = try fresh()
        var sets: [ChangeSet] = []
        graph.observeChangeSets { sets.append($0) }
        for _ in 0..<rng.int(1..<40) { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: [])) }
        graph.processPendingChanges()
        let events = shortcut.apply(sets[0])
        #expect(shortcut.lastCycleRebuilt)
        #expect(events == incremental.apply(sets[0]), "seed \(seed)")
        #expect(wireOrderProblems(events) == [])
        try mirror.apply(events) { main.snapshot(of: $0) }
        #expect(mirror == (try fresh()), "seed \(seed)")
    }
}
