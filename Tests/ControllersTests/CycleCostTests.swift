import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// The choice between a rebuild and an incremental cycle, on the figures fetchd measured
/// (Benchmarks/README.md, "Measurements behind the code"): a 200k-row controller whose
/// keyed fetch took 16 ms.
@Suite struct CycleCostTests {
    static func measured(fetch nanos: Double = 16_000_000, rows: Int = 200_000) -> CycleCost {
        var cost = CycleCost()
        cost.recordFetch(nanos: nanos, rows: rows)
        return cost
    }

    @Test func aFillOfSavedRowsRebuilds() {
        // The controller's fetch found nothing: 45 us, no rows.
        let cost = Self.measured(fetch: 45_000, rows: 0)
        #expect(cost.prefersRebuild(changes: 200_000, held: 0, unsaved: { 0 }))
        #expect(cost.prefersRebuild(changes: 1_000, held: 0, unsaved: { 0 }))
        // Unsaved inserts: the fetch would evaluate each in memory, slower than inserting it.
        #expect(!cost.prefersRebuild(changes: 50_000, held: 0, unsaved: { 50_000 }))
    }

    @Test func movesOfATenthOrLessStayIncremental() {
        let cost = Self.measured()
        for k in [512, 10_000, 20_000] {
            #expect(!cost.prefersRebuild(changes: k, held: 200_000, unsaved: { 0 }), "\(k) changes")
            #expect(!cost.prefersRebuild(changes: k, held: 200_000, unsaved: { k }), "\(k) unsaved changes")
        }
    }

    @Test func changingEveryRowRebuildsUntilIncrementalCyclesProveCheaper() {
        var cost = Self.measured()
        #expect(cost.prefersRebuild(changes: 200_000, held: 200_000, unsaved: { 0 }))
        #expect(!cost.prefersRebuild(changes: 200_000, held: 200_000, unsaved: { 200_000 }))
        // Incremental cycles measured at 1.3 us a change.
        for _ in 0..<20 { cost.recordIncremental(nanos: 13_000_000, changes: 10_000) }
        #expect(!cost.prefersRebuild(changes: 200_000, held: 200_000, unsaved: { 0 }))
    }

    @Test func smallCyclesAndUnmeasuredFetchesNeverRebuild() {
        #expect(!Self.measured(fetch: 45_000, rows: 0).prefersRebuild(changes: 511, held: 0, unsaved: { 0 }))
        #expect(!CycleCost().prefersRebuild(changes: 100_000, held: 0, unsaved: { 0 }))
    }

    @Test func aFetchOfManyRowsMeasuresTheCostOfARow() {
        var cost = CycleCost()
        cost.recordFetch(nanos: 200_000_000, rows: 200_000)
        #expect(cost.fetchNanosPerRow == 1_000)
        cost.recordFetch(nanos: 1_000_000, rows: 10)
        #expect(cost.fetchNanosPerRow == 1_000, "a small fetch is mostly fixed cost")
    }

    /// Through a context: the cycle of a batch insert (saved rows) fills an empty controller
    /// by a rebuild; the same rows inserted unsaved are counted (`pendingObjectCount`) and
    /// go in one by one. The fetch's measured time is set, so no clock decides.
    @Test(arguments: [true, false])
    func aFillRebuildsOnlyWhenItsRowsAreSaved(saved: Bool) throws {
        var rng = SeededRandom(seed: saved ? 71 : 72)
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        let request = try RequestCompiler(model: Library.model).compile(
            FetchRequest(entity: "Book", sortDescriptors: [SortDescriptor(key: "title")]), sectionNameKeyPath: nil)
        let controller = FetchedResultsController(name: "c", source: main, request: request, model: Library.model)
        try controller.performFetch()
        controller.cost.recordFetch(nanos: 50_000, rows: 0)
        var sets: [ChangeSet] = []
        graph.observeChangeSets { sets.append($0) }
        let rows = (0..<2_000).map { _ in ContextOracleTests.bookValues(&rng, authors: []) }
        if saved {
            _ = try graph.batchInsert("Book", rows: rows)
        } else {
            for values in rows { _ = try main.insert("Book", values) }
            #expect(main.pendingObjectCount(of: "Book") == rows.count)
            graph.processPendingChanges()
        }
        let cycle = try #require(sets.first { $0.context == main.name })
        _ = controller.apply(cycle)
        #expect(controller.lastCycleRebuilt == saved)
        #expect(controller.count == rows.count)
    }
}
