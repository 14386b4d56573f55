import Contexts
import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Controllers

/// A controller whose refetch fails says so (`CycleNotifications.failed`) and stays
/// consistent: it keeps the results its client holds, fetches again at its next cycle, and
/// then reports the whole difference. The failure is real: a plain SQL connection renames
/// the memos' table away while the reader merges a gap in the history.
@Suite struct FailedRefetchTests {
    static func spec(_ name: String, _ context: String, _ request: FetchRequest, section: String? = nil)
        -> ContextOracleTests.Spec
    {
        ContextOracleTests.Spec(name: name, context: context, request: request, section: section)
    }

    static let specs = [
        spec(
            "memosByTitle", "main",
            FetchRequest(entity: "Memo", sortDescriptors: [SortDescriptor(key: "title"), SortDescriptor(key: "year")])),
        spec(
            "books", "main",
            FetchRequest(entity: "Book", sortDescriptors: [SortDescriptor(key: "title")])),
        spec(
            "memoYears", "main",
            FetchRequest(entity: "Memo", predicate: "price > 5", sortDescriptors: [SortDescriptor(key: "price")]),
            section: "year"),
        spec(
            "childMemos", "edit",
            FetchRequest(
                entity: "Memo", sortDescriptors: [SortDescriptor(key: "year"), SortDescriptor(key: "title")],
                fetchLimit: 5, fetchOffset: 1)),
    ]
    static let memoControllers = ["memosByTitle", "memoYears", "childMemos"]

    static func memoValues(_ rng: inout SeededRandom) -> Snapshot {
        [
            "title": .string(Library.titles[rng.int(0..<Library.titles.count)]),
            "price": rng.chance(0.1) ? .null : .integer(Int64(rng.int(0..<30))),
            "year": .integer(Int64(2000 + rng.int(0..<5))),
            "flag": .bool(rng.chance(0.5)),
            "note": .string("n\(rng.int(0..<3))"),
        ]
    }

    /// A reader graph with the controllers registered and mirrored, a writer graph and a
    /// plain connection on one file.
    final class Setup {
        let dir = TempDir()
        let reader: ObjectGraph
        let writer: ObjectGraph
        let raw: Connection
        let registry: ControllerRegistry
        let mirrors = ControllerRegistryTests.Mirrors()
        var rng = SeededRandom(seed: 21)

        init() throws {
            let file = dir.file("refetch.sqlite")
            reader = ObjectGraph(
                store: try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) })
            writer = ObjectGraph(
                store: try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) })
            raw = try Connection(path: file)
            try raw.execute("PRAGMA busy_timeout=2000")
            let main = try reader.context(ObjectGraph.mainContext)
            _ = try reader.createContext("edit", parent: ObjectGraph.mainContext)
            for i in 0..<3 { _ = try main.insert("Author", ["name": .string(Library.names[i]), "rank": .integer(1)]) }
            let authors = try main.fetch(entity: "Author")
            for _ in 0..<10 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
            for _ in 0..<14 { _ = try main.insert("Memo", FailedRefetchTests.memoValues(&rng)) }
            try main.save()
            reader.processPendingChanges()
            _ = try reader.mergeExternalTransactions()
            registry = ControllerRegistry(graph: reader)
            registry.addObserver(mirrors)
            let compiler = RequestCompiler(model: Library.model)
            for spec in FailedRefetchTests.specs {
                let h = try ContextOracleTests.Harness(spec, reader, compiler)
                mirrors.harnesses[spec.name] = h
                try registry.register(h.controller, on: h.context)
            }
        }

        func harness(_ name: String) -> ContextOracleTests.Harness { mirrors.harnesses[name]! }

        /// The writer saves memos and books twice, then purges its history by force: the
        /// reader's next merge finds a gap and makes every controller fetch again.
        func writeAndLeaveAGap() throws {
            let other = try writer.context(ObjectGraph.mainContext)
            for _ in 0..<2 {
                for _ in 0..<3 { _ = try other.insert("Memo", FailedRefetchTests.memoValues(&rng)) }
                _ = try other.insert("Book", ContextOracleTests.bookValues(&rng, authors: []))
                try other.save()
            }
            _ = try writer.store.purgeHistory(before: try writer.store.currentToken, force: true)
            #expect(try reader.store.historyGap(after: reader.store.mergeCursor))
        }

        func hideMemos() throws { try raw.execute("ALTER TABLE \"Memo\" RENAME TO \"MemoAway\"") }
        func restoreMemos() throws { try raw.execute("ALTER TABLE \"MemoAway\" RENAME TO \"Memo\"") }

        /// A cycle of main and its child that changes no memo.
        func bookCycle() throws {
            _ = try reader.context(ObjectGraph.mainContext).insert(
                "Book", ContextOracleTests.bookValues(&rng, authors: []))
            reader.processPendingChanges()
        }

        /// Each mirror as a client holds it, against the controller's held rows.
        func expectMirrorsMatchTheControllers(_ label: String) throws {
            for h in mirrors.harnesses.values {
                let sections = h.controller.sections
                #expect(h.mirror.sections.map(\.name) == sections.map(\.name), "\(label) \(h.spec.name)")
                for (i, section) in h.mirror.sections.enumerated() where i < sections.count {
                    #expect(section.rows.map(\.id) == (try h.controller.ids(section: i)), "\(label) \(h.spec.name)")
                }
            }
        }

        func expectMirrorsFresh(_ label: String, only names: [String]? = nil) throws {
            for h in mirrors.harnesses.values where names?.contains(h.spec.name) ?? true {
                #expect(h.mirror == (try h.fresh()), "\(label) \(h.spec.name)")
            }
        }

        func takeFailures() -> [String] {
            defer { mirrors.failures.removeAll() }
            return mirrors.failures
        }
    }

    @Test func aFailedRefetchIsReportedAndTheNextCycleCatchesUp() throws {
        let s = try Setup()
        try s.writeAndLeaveAGap()
        try s.hideMemos()
        let held = s.mirrors.harnesses.mapValues(\.mirror)

        let merged = try s.reader.mergeExternalTransactions()
        #expect(merged.gap)
        // Each memo controller reported its failure, in cycle order (main's, then edit's);
        // the books' controller fetched again as usual.
        #expect(s.takeFailures() == Self.memoControllers.map { "\($0): storeError" })
        for name in Self.memoControllers {
            #expect(s.harness(name).controller.needsRefetch)
            #expect(s.harness(name).mirror == held[name], "\(name) sent nothing")
        }
        #expect(!s.harness("books").controller.needsRefetch)
        try s.expectMirrorsFresh("after the gap", only: ["books"])
        try s.expectMirrorsMatchTheControllers("after the gap")

        // Still hidden: the next cycle tries again, fails again, changes nothing.
        try s.bookCycle()
        #expect(s.takeFailures() == Self.memoControllers.map { "\($0): storeError" })
        for name in Self.memoControllers { #expect(s.harness(name).mirror == held[name]) }
        try s.expectMirrorsFresh("hidden, a book cycle", only: ["books"])
        try s.expectMirrorsMatchTheControllers("hidden, a book cycle")

        // Back: the next cycle, though it changes no memo, brings every memo controller up to
        // date in one cycle of notifications (the writer's memos arrive).
        try s.restoreMemos()
        try s.bookCycle()
        #expect(s.takeFailures() == [])
        for name in Self.memoControllers { #expect(!s.harness(name).controller.needsRefetch) }
        #expect(s.harness("memosByTitle").mirror != held["memosByTitle"])
        try s.expectMirrorsFresh("restored")
        try s.expectMirrorsMatchTheControllers("restored")

        // And the cycles after it are incremental again.
        for _ in 0..<20 {
            let main = try s.reader.context(ObjectGraph.mainContext)
            for _ in 0..<s.rng.int(1..<4) {
                if s.rng.chance(0.5) {
                    _ = try main.insert("Memo", Self.memoValues(&s.rng))
                } else {
                    try? ContextOracleTests.mutate(main, &s.rng)
                }
            }
            s.reader.processPendingChanges()
            try s.expectMirrorsFresh("after")
        }
        #expect(s.takeFailures() == [])
    }

    @Test func aStaleControllerCatchesUpThroughSetRequestOrPerformFetch() throws {
        let s = try Setup()
        try s.writeAndLeaveAGap()
        try s.hideMemos()
        _ = try s.reader.mergeExternalTransactions()
        #expect(s.takeFailures().count == Self.memoControllers.count)

        // A new request cannot be fetched while the table is away: an error, nothing changes.
        let byTitle = s.harness("memosByTitle")
        let compiler = RequestCompiler(model: Library.model)
        let narrower = try compiler.compile(
            FetchRequest(
                entity: "Memo", predicate: "year >= 2002",
                sortDescriptors: [SortDescriptor(key: "title"), SortDescriptor(key: "year")]))
        #expect(throws: EngineError.self) { try byTitle.controller.setRequest(narrower, model: Library.model) }
        #expect(byTitle.controller.needsRefetch)
        try s.expectMirrorsMatchTheControllers("refused setRequest")

        try s.restoreMemos()
        // The same request (same order: normally queried as a difference of predicates) now
        // fetches in full and reports the rows that stay as updates, so the mirror gets the
        // values it missed.
        let events = try byTitle.controller.setRequest(narrower, model: Library.model)
        #expect(wireOrderProblems(events) == [])
        try byTitle.mirror.apply(events) { byTitle.context.snapshot(of: $0) }
        #expect(!byTitle.controller.needsRefetch)
        let fresh = try freshResults(
            byTitle.context, filter: narrower.filter, ordering: narrower.ordering, sectioned: false, offset: 0,
            limit: nil)
        #expect(byTitle.mirror == fresh)
        #expect(events.contains { if case .object(.update, _, _, _) = $0 { true } else { false } })

        // performFetch replaces the results (the client reads them again): no refetch owed.
        let years = s.harness("memoYears")
        try years.controller.performFetch()
        #expect(!years.controller.needsRefetch)
        years.mirror = try years.fresh()
        try s.bookCycle()
        #expect(s.takeFailures() == [])
        try s.expectMirrorsFresh("after catching up", only: ["memoYears", "childMemos", "books"])
    }

    /// A refetch change set on a controller whose source fails: the cycle reports the error
    /// and the results stay; a performFetch that fails leaves the controller as it was too.
    @Test func aClosedStoreFailsTheRefetchWithoutLosingTheResults() throws {
        var rng = SeededRandom(seed: 9)
        let graph = ObjectGraph(
            store: try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) })
        let main = try graph.context(ObjectGraph.mainContext)
        for _ in 0..<8 { _ = try main.insert("Memo", Self.memoValues(&rng)) }
        try main.save()
        let controller = FetchedResultsController(
            name: "memos", source: main,
            request: try RequestCompiler(model: Library.model).compile(Self.specs[0].request), model: Library.model)
        try controller.performFetch()
        let ids = try controller.ids(section: 0)
        graph.store.close()
        let outcome = controller.applyCycle(ChangeSet(context: "main", changes: [], reason: .external, refetch: true))
        guard case .failed(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome.events)")
            return
        }
        #expect(error.kind == .storeClosed)
        #expect(controller.needsRefetch)
        #expect(try controller.ids(section: 0) == ids)
        #expect(throws: EngineError.self) { try controller.performFetch() }
        #expect(controller.needsRefetch)
        #expect(try controller.ids(section: 0) == ids)
    }
}
