import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// A predicate batch runs as SQL alone only when no controller may show the entity
/// (ControllerRegistry's `needsBatchValuesOf`): a controller on it, or on an entity that
/// reads it through a relationship, still gets its cycle, and its mirror stays fresh.
@Suite struct BatchInSQLControllerTests {
    /// Applies each controller's notifications to its mirror, as a client does.
    final class Client: ControllerObserver {
        var mirrors: [String: Mirror] = [:]
        var cycles = 0
        func controllersDidApply(_ cycle: ControllerCycle) {
            cycles += 1
            for (controller, notifications) in cycle.outcomes {
                do {
                    try mirrors[controller.name, default: Mirror()].apply(notifications.events) {
                        cycle.context.snapshot(of: $0)
                    }
                } catch { Issue.record("\(controller.name): \(error)") }
            }
        }
    }

    /// Hears a batch only when it was noted (it needs none itself).
    final class Probe: GraphObserver {
        var batches = 0
        func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) {
            if changeSet.reason == .batch { batches += 1 }
        }
        func graph(_ graph: ObjectGraph, needsBatchValuesOf entity: String) -> Bool { false }
    }

    struct Setup {
        let graph: ObjectGraph
        let registry: ControllerRegistry
        let client = Client()
        let probe = Probe()
        let compiler = RequestCompiler(model: Library.model)
        var requests: [String: (CompiledRequest, Bool)] = [:]

        init() throws {
            graph = ObjectGraph(
                store: try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) })
            registry = ControllerRegistry(graph: graph)
            registry.addObserver(client)
            graph.addObserver(probe)
            let main = try graph.context(ObjectGraph.mainContext)
            var authors: [ObjectID] = []
            for i in 0..<4 {
                authors.append(try main.insert("Author", ["name": .string("a\(i)"), "rank": .integer(Int64(i))]))
            }
            for i in 0..<40 {
                let values: Snapshot = [
                    "title": .string("t\(i)"), "price": .integer(Int64(i % 9)), "year": .integer(Int64(2000 + i % 5)),
                    "flag": .bool(i % 3 == 0), "note": .string("n"), "author": .object(authors[i % 4]),
                ]
                _ = try main.insert("Book", values)
                _ = try main.insert("Memo", values.filter { $0.key != "author" })
            }
            try main.save()
            graph.processPendingChanges()
        }

        mutating func watch(_ name: String, _ request: FetchRequest, section: String? = nil) throws {
            let compiled = try compiler.compile(request, sectionNameKeyPath: section)
            let main = try graph.context(ObjectGraph.mainContext)
            let c = FetchedResultsController(name: name, source: main, request: compiled, model: Library.model)
            try c.performFetch()
            try registry.register(c, on: main)
            requests[name] = (compiled, section != nil)
            client.mirrors[name] = try fresh(name)
        }

        func fresh(_ name: String) throws -> Mirror {
            let (compiled, sectioned) = requests[name]!
            return try freshResults(
                try graph.context(ObjectGraph.mainContext), filter: compiled.filter, ordering: compiled.ordering,
                sectioned: sectioned, offset: 0, limit: nil)
        }

        func filter(_ entity: String, _ predicate: String) throws -> any ObjectFilter {
            try compiler.compile(FetchRequest(entity: entity, predicate: predicate)).filter
        }

        func expectFresh() throws {
            for name in requests.keys { #expect(client.mirrors[name] == (try fresh(name)), "\(name)") }
        }
    }

    @Test func aControllerOnTheEntityKeepsItsCycle() throws {
        var s = try Setup()
        try s.watch("books", FetchRequest(entity: "Book", sortDescriptors: [SortDescriptor(key: "price")]))
        #expect(
            try s.graph.batchUpdate("Book", filter: s.filter("Book", "year == 2001"), values: ["price": .integer(99)])
                == 8)
        #expect(try s.graph.batchDelete("Book", filter: s.filter("Book", "flag == YES"), ids: nil) == 14)
        #expect(s.probe.batches == 2 && s.client.cycles == 2)
        try s.expectFresh()
    }

    /// Authors filtered through their books: a batch on books changes which match.
    @Test func aControllerReachingTheEntityThroughARelationshipKeepsItsCycle() throws {
        var s = try Setup()
        try s.watch(
            "authors",
            FetchRequest(
                entity: "Author", predicate: "ANY books.price > 40", sortDescriptors: [SortDescriptor(key: "name")]))
        let rows = { s.client.mirrors["authors"]?.sections.map(\.rows.count).reduce(0, +) }
        #expect(rows() == 0)
        let filter = try s.filter("Book", "year == 2002")
        #expect(try s.graph.batchUpdate("Book", filter: filter, values: ["price": .integer(50)]) == 8)
        #expect(rows() == 4)
        try s.expectFresh()
        #expect(try s.graph.batchDelete("Book", filter: s.filter("Book", "price > 40"), ids: nil) == 8)
        #expect(rows() == 0)
        #expect(s.probe.batches == 2)
        try s.expectFresh()
    }

    /// Memos are joined to nothing: a controller on books does not need them noted.
    @Test func aControllerOnAnUnrelatedEntityLeavesSQLAlone() throws {
        var s = try Setup()
        try s.watch("books", FetchRequest(entity: "Book", sortDescriptors: [SortDescriptor(key: "title")]))
        #expect(
            try s.graph.batchUpdate("Memo", filter: s.filter("Memo", "year == 2001"), values: ["price": .integer(99)])
                == 8)
        #expect(try s.graph.batchDelete("Memo", filter: s.filter("Memo", "flag == YES"), ids: nil) == 14)
        #expect(s.probe.batches == 0 && s.client.cycles == 0)
        #expect(try s.graph.store.count(entity: "Memo", filter: nil) == 26)
        try s.expectFresh()
    }
}
