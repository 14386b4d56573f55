import Contexts
import Model
import Predicates
import SQLite
import Store
import Testing

@testable import Controllers

/// The engine's routing of change sets to controllers (ControllerRegistry.swift): each
/// context's controllers in registration order, each cycle collected for the registry's
/// observers, closed contexts taking their controllers with them.
@Suite struct ControllerRegistryTests {
    /// Applies every outcome to its controller's mirror, as a client applies notifications,
    /// and logs which controllers each cycle served.
    final class Mirrors: ControllerObserver {
        var harnesses: [String: ContextOracleTests.Harness] = [:]
        var served: [String] = []
        var removed: [String] = []
        var failures: [String] = []

        func controllersDidApply(_ cycle: ControllerCycle) {
            served.append("\(cycle.context.name): " + cycle.outcomes.map(\.controller.name).joined(separator: " "))
            for (controller, outcome) in cycle.outcomes {
                guard let h = harnesses[controller.name] else { continue }
                if case .failed(let error) = outcome { failures.append("\(controller.name): \(error.kind.rawValue)") }
                let events = outcome.events
                #expect(wireOrderProblems(events) == [], "\(controller.name)")
                do { try h.mirror.apply(events) { cycle.context.snapshot(of: $0) } } catch {
                    Issue.record("\(controller.name): \(error)")
                }
            }
        }

        func controllerWasRemoved(_ controller: FetchedResultsController) { removed.append(controller.name) }

        func take() -> [String] {
            defer { served.removeAll() }
            return served
        }
    }

    static func spec(_ name: String, _ context: String, _ request: FetchRequest, section: String? = nil)
        -> ContextOracleTests.Spec
    {
        ContextOracleTests.Spec(name: name, context: context, request: request, section: section)
    }

    static let byTitle = FetchRequest(entity: "Book", sortDescriptors: [SortDescriptor(key: "title")])
    static let byPrice = FetchRequest(
        entity: "Book", predicate: "price > 5", sortDescriptors: [SortDescriptor(key: "price")], fetchLimit: 8)
    static let authors = FetchRequest(entity: "Author", sortDescriptors: [SortDescriptor(key: "name")])

    /// A graph with main, a child `edit` and a sibling root `other`, some authors and books.
    static func graph(_ rng: inout SeededRandom) throws -> ObjectGraph {
        let graph = ObjectGraph(
            store: try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) })
        let main = try graph.context(ObjectGraph.mainContext)
        _ = try graph.createContext("edit", parent: ObjectGraph.mainContext)
        _ = try graph.createContext("other")
        for i in 0..<4 { _ = try main.insert("Author", ["name": .string(Library.names[i]), "rank": .integer(2)]) }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<20 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        try main.save()
        graph.processPendingChanges()
        return graph
    }

    @Test func aContextsControllersAreServedInRegistrationOrderAndMirrorsStayFresh() throws {
        var rng = SeededRandom(seed: 11)
        let graph = try Self.graph(&rng)
        let registry = ControllerRegistry(graph: graph)
        let mirrors = Mirrors()
        registry.addObserver(mirrors)
        let compiler = RequestCompiler(model: Library.model)
        // Registered interleaved across contexts: each context's cycle keeps this order.
        let specs = [
            Self.spec("c", "main", Self.byPrice),
            Self.spec("childBooks", "edit", Self.byTitle),
            Self.spec("a", "main", Self.byTitle, section: "year"),
            Self.spec("siblingAuthors", "other", Self.authors),
            Self.spec("b", "main", Self.authors),
        ]
        for spec in specs {
            let h = try ContextOracleTests.Harness(spec, graph, compiler)
            mirrors.harnesses[spec.name] = h
            try registry.register(h.controller, on: h.context)
        }
        #expect(registry.controllers.map(\.name) == ["c", "childBooks", "a", "siblingAuthors", "b"])

        let main = try graph.context("main")
        let edit = try graph.context("edit")
        for step in 0..<40 {
            let target = step % 3 == 0 ? edit : main
            for _ in 0..<rng.int(1..<4) { try? ContextOracleTests.mutate(target, &rng) }
            if target === edit && rng.chance(0.3) { _ = try? edit.save() }
            if rng.chance(0.2) { _ = try? main.save() }
            graph.processPendingChanges()
            for h in mirrors.harnesses.values {
                #expect(h.mirror == (try h.fresh()), "step \(step) \(h.spec.name)")
            }
        }
        let served = mirrors.take()
        // Every cycle of main served its three controllers in registration order, edit its
        // one, other its one (it merges main's saves).
        #expect(served.contains("main: c a b"))
        #expect(served.contains("edit: childBooks"))
        #expect(served.contains("other: siblingAuthors"))
        #expect(Set(served).isSubset(of: ["main: c a b", "edit: childBooks", "other: siblingAuthors"]))
        #expect(mirrors.failures == [])

        // Closing the graph closes every context, and so takes every controller (the
        // latest contexts' first).
        graph.close()
        #expect(registry.controllers.isEmpty)
        #expect(mirrors.removed == ["siblingAuthors", "childBooks", "c", "a", "b"])
    }

    @Test func namesAreUniqueAndAClosedContextTakesItsControllers() throws {
        var rng = SeededRandom(seed: 3)
        let graph = try Self.graph(&rng)
        let registry = ControllerRegistry(graph: graph)
        let mirrors = Mirrors()
        registry.addObserver(mirrors)
        let compiler = RequestCompiler(model: Library.model)
        let edit = try graph.context("edit")
        for spec in [Self.spec("kept", "main", Self.byTitle), Self.spec("child", "edit", Self.byTitle)] {
            let h = try ContextOracleTests.Harness(spec, graph, compiler)
            mirrors.harnesses[spec.name] = h
            try registry.register(h.controller, on: h.context)
        }
        let again = FetchedResultsController(
            name: "kept", source: edit, request: try compiler.compile(Self.byTitle), model: Library.model)
        #expect(throws: EngineError.self) { try registry.register(again, on: edit) }

        try graph.closeContext("edit")
        #expect(mirrors.removed == ["child"])
        #expect(registry.controllers.map(\.name) == ["kept"])
        #expect(throws: EngineError.self) { try registry.registration("child") }
        // A controller on a context no longer in the graph is refused.
        let orphan = FetchedResultsController(
            name: "orphan", source: edit, request: try compiler.compile(Self.byTitle), model: Library.model)
        do throws(EngineError) {
            try registry.register(orphan, on: edit)
            Issue.record("registered on a closed context")
        } catch {
            #expect(error.kind == .unknownContext)
        }

        _ = try graph.context("main").insert("Book", ContextOracleTests.bookValues(&rng, authors: []))
        graph.processPendingChanges()
        #expect(mirrors.take() == ["main: kept"])
        registry.unregister("kept")
        #expect(mirrors.removed == ["child", "kept"])
        _ = try graph.context("main").insert("Book", ContextOracleTests.bookValues(&rng, authors: []))
        graph.processPendingChanges()
        // No controller left on main: nothing is reported.
        #expect(mirrors.take() == [])
    }

    @Test func theRegistryTakesItsPlaceOnTheGraphsObserverList() throws {
        var rng = SeededRandom(seed: 5)
        let graph = try Self.graph(&rng)
        var log: [String] = []
        graph.observeChangeSets { log.append("before: \($0.context)") }
        let registry = ControllerRegistry(graph: graph)
        graph.observeChangeSets { log.append("after: \($0.context)") }
        final class Served: ControllerObserver {
            let note: (String) -> Void
            init(_ note: @escaping (String) -> Void) { self.note = note }
            func controllersDidApply(_ cycle: ControllerCycle) { note("registry: \(cycle.context.name)") }
        }
        registry.addObserver(Served { log.append($0) })
        let main = try graph.context("main")
        let controller = FetchedResultsController(
            name: "books", source: main, request: try RequestCompiler(model: Library.model).compile(Self.byTitle),
            model: Library.model)
        try controller.performFetch()
        try registry.register(controller, on: main)
        _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: []))
        graph.processPendingChanges()
        #expect(log == ["before: main", "registry: main", "after: main", "before: edit", "after: edit"])
    }
}
