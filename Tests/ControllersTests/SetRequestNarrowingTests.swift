import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// setRequest's narrowing path: which predicate changes are recognized as refinements, and
/// that filtering the held rows gives exactly what the general path (a query) gives, over
/// unsaved changes in the context.
@Suite struct SetRequestNarrowingTests {
    static func narrows(_ old: String?, _ new: String?, _ vars: [String: Value] = [:]) -> Bool {
        RequestNarrowing.narrows(
            FetchRequest(entity: "Book", predicate: new, variables: vars),
            from: FetchRequest(entity: "Book", predicate: old))
    }

    @Test func recognizesRefinementsStructurally() {
        #expect(Self.narrows(nil, "price > 10"))
        #expect(Self.narrows("price > 10", "price > 10 AND flag == YES"))
        #expect(Self.narrows("price > 10", "(flag == YES) AND (price > 10)"))
        #expect(Self.narrows("price > 10 AND year == 2001", "year == 2001 AND flag == YES AND price > 10"))
        #expect(Self.narrows("title BEGINSWITH 'Th'", "title BEGINSWITH 'The'"))
        #expect(Self.narrows("title BEGINSWITH[c] 'th'", "title BEGINSWITH[c] 'THE'"))
        #expect(Self.narrows("title BEGINSWITH 'Th' AND flag == YES", "flag == YES AND title BEGINSWITH 'The '"))
        #expect(Self.narrows("price > 10", "price > 10"))
    }

    @Test func refusesWhatIsNotProvablyNarrower() {
        #expect(!Self.narrows("price > 10", nil))
        #expect(!Self.narrows("price > 10", "price > 20")) // true, but not structural: a query
        #expect(!Self.narrows("price > 10 AND flag == YES", "price > 10"))
        #expect(!Self.narrows("price > 10", "price > 10 OR flag == YES"))
        #expect(!Self.narrows("title BEGINSWITH 'The'", "title BEGINSWITH 'Th'"))
        #expect(!Self.narrows("title BEGINSWITH 'Th'", "note BEGINSWITH 'The'"))
        #expect(!Self.narrows("title BEGINSWITH 'Th'", "title BEGINSWITH[c] 'The'"))
        #expect(!Self.narrows("title BEGINSWITH[cd] 'th'", "title BEGINSWITH[cd] 'the'"))
        #expect(!Self.narrows("title BEGINSWITH[c] 'st'", "title BEGINSWITH[c] 'straße'"))
        #expect(!Self.narrows("price > 10", "price > 10 AND year == $y", ["y": .integer(2001)]))
        #expect(!Self.narrows("price > 10", "price >"))
    }

    /// The residual is what the old matches still have to pass: only the new conjuncts, so
    /// a refinement by an attribute the sort keys hold reads no object.
    @Test func theResidualHoldsOnlyTheNewConjuncts() {
        func residual(_ old: String?, _ new: String?) -> (any ObjectFilter)? {
            RequestNarrowing.residual(
                FetchRequest(entity: "Book", predicate: new), from: FetchRequest(entity: "Book", predicate: old),
                model: Library.model)
        }
        #expect(
            residual("price > 10 AND flag == YES", "flag == YES AND year == 2001 AND price > 10")?.readAttributes == [
                "year"
            ])
        #expect(residual("price > 10", "price > 10 AND title BEGINSWITH 'T'")?.attributeTest?.attribute == "title")
        #expect(residual("title BEGINSWITH 'Th'", "title BEGINSWITH 'The'")?.readAttributes == ["title"])
        #expect(residual(nil, "price > 10 AND flag == YES")?.readAttributes == ["price", "flag"])
        let same = residual("price > 10", "price > 10")
        #expect(same?.readAttributes == [])
        #expect(same?.matches(ObjectID(entity: "Book", number: 1), ["price": .integer(1)], in: NoObjects()) == true)
        let left = residual("price > 10", "price > 10 AND year == 2001")
        #expect(
            left?.matches(
                ObjectID(entity: "Book", number: 1), ["year": .integer(2001), "price": .integer(1)], in: NoObjects())
                == true)
        #expect(left?.matches(ObjectID(entity: "Book", number: 1), ["year": .integer(2002)], in: NoObjects()) == false)
        #expect(residual("price > 10", "price > 20") == nil)
        #expect(residual("price > 10", "price > 10 AND nope == 1") == nil) // binds nothing: no proof
    }

    /// Two controllers on one context with unsaved changes: one refines through the compiled
    /// request (the narrowing path), the other is told nothing narrows (a query). Same events,
    /// and both mirrors equal a fresh fetch.
    @Test(arguments: [UInt64(5), 6, 7, 8])
    func narrowingEqualsTheGeneralPath(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        for _ in 0..<4 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<60 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        _ = try main.save()
        // Unsaved changes the new results must reflect.
        for _ in 0..<15 { try? ContextOracleTests.mutate(main, &rng) }
        graph.processPendingChanges()

        let compiler = RequestCompiler(model: Library.model)
        let steps = [
            "price > 5", "price > 5 AND flag == YES", "flag == YES AND price > 5 AND title BEGINSWITH[c] 'T'",
            "flag == YES AND price > 5 AND title BEGINSWITH[c] 'TH'",
        ]
        let section = rng.chance(0.5) ? "year" : nil
        let limit: Int? = rng.chance(0.5) ? 7 : nil
        func request(_ predicate: String?) throws -> CompiledRequest {
            try compiler.compile(
                FetchRequest(
                    entity: "Book", predicate: predicate,
                    sortDescriptors: [SortDescriptor(key: "title"), SortDescriptor(key: "price", ascending: false)],
                    fetchLimit: limit, fetchOffset: limit == nil ? 0 : 2),
                sectionNameKeyPath: section)
        }
        let start = try request(nil)
        let narrowed = FetchedResultsController(name: "n", source: main, request: start, model: Library.model)
        let queried = FetchedResultsController(name: "q", source: main, request: start, model: Library.model)
        try narrowed.performFetch()
        try queried.performFetch()
        func fresh(_ r: CompiledRequest) throws -> Mirror {
            try freshResults(
                main, filter: r.filter, ordering: r.ordering, sectioned: section != nil,
                offset: r.request.fetchOffset, limit: r.request.fetchLimit)
        }
        var mirror = try fresh(start)
        for (i, predicate) in steps.enumerated() {
            let next = try request(predicate)
            let events = try narrowed.setRequest(next, model: Library.model)
            let expected = try queried.setRequest(
                filter: next.filter, ordering: next.ordering, sectionNameKeyPath: section, fetchLimit: limit,
                fetchOffset: next.request.fetchOffset, keepsOrder: true, narrows: false, model: Library.model)
            #expect(narrowed.narrowedRequests == i + 1, "seed \(seed) step \(i)")
            #expect(queried.narrowedRequests == 0)
            #expect(events == expected, "seed \(seed) step \(i)")
            #expect(wireOrderProblems(events) == [])
            try mirror.apply(events) { main.snapshot(of: $0) }
            #expect(mirror == (try fresh(next)), "seed \(seed) step \(i): \(events)")
        }
        // A widening is no refinement: it queries.
        _ = try narrowed.setRequest(try request("price > 5"), model: Library.model)
        #expect(narrowed.narrowedRequests == steps.count)
        _ = try narrowed.setRequest(try request(nil), model: Library.model)
        #expect(narrowed.narrowedRequests == steps.count)
    }
}

/// A view with no objects: the residual tests read only the values they are given.
private struct NoObjects: ObjectView {
    func snapshot(of id: ObjectID) -> Snapshot? { nil }
    func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] { [] }
}
