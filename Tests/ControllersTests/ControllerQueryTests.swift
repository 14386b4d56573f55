import Model
import Testing

@testable import Controllers

@Suite struct ControllerQueryTests {
    @Test func sectionNamesFollowTheValueRules() {
        #expect(SectionInfo.name(for: .null) == "")
        #expect(SectionInfo.name(for: .string("élan")) == "élan")
        #expect(SectionInfo.name(for: .integer(-42)) == "-42")
        #expect(SectionInfo.name(for: .double(3)) == "3")
        #expect(SectionInfo.name(for: .double(2.5)) == "2.5")
        #expect(SectionInfo.name(for: .bool(true)) == "true")
        #expect(SectionInfo.name(for: .date(0)) == "1970-01-01T00:00:00.000Z")
        #expect(SectionInfo(name: "élan", numberOfObjects: 1).indexTitle == "É")
        #expect(SectionInfo(name: "", numberOfObjects: 0).indexTitle == "")
    }

    /// Contacts in sections A, a (its own section: names differ), B; window of 4 rows.
    func controller(offset: Int = 0, limit: Int? = nil) throws -> (TestStore, FetchedResultsController) {
        let model = ObjectModel(entities: [
            Entity(
                name: "C",
                attributes: [
                    Attribute(name: "name", type: .string), Attribute(name: "initial", type: .string),
                ])
        ])
        let store = TestStore(model: model)
        for name in ["Al", "Ann", "Ava", "al", "Bo", "Bea"] {
            store.insert("C", ["name": .string(name), "initial": .string(String(name.prefix(1)))])
        }
        _ = store.endCycle()
        let c = FetchedResultsController(
            name: "c", source: store, filter: TestFilter(entity: "C"),
            ordering: TestOrdering(entity: "C", section: ["initial"], sort: [(["name"], true)]),
            sectionNameKeyPath: "initial", fetchLimit: limit, fetchOffset: offset, model: model)
        try c.performFetch()
        return (store, c)
    }

    @Test func sectionsRowsAndIndexPathsInAWindow() throws {
        let (store, c) = try controller(offset: 2, limit: 3)
        // All rows: A[Al Ann Ava] B[Bea Bo] a[al]; the window is Ava, Bea, Bo.
        #expect(c.sections == [SectionInfo(name: "A", numberOfObjects: 1), SectionInfo(name: "B", numberOfObjects: 2)])
        #expect(c.count == 3)
        #expect(try c.ids(section: 1).map(\.number) == [6, 5])
        #expect(try c.ids(section: 1, offset: 1, limit: 5).map(\.number) == [5])
        #expect(try c.object(at: IndexPath(section: 0, row: 0)).number == 3)
        #expect(c.indexPath(of: ObjectID(entity: "C", number: 5)) == IndexPath(section: 1, row: 1))
        #expect(c.indexPath(of: ObjectID(entity: "C", number: 1)) == nil) // before the window
        #expect(c.indexPath(of: ObjectID(entity: "Other", number: 5)) == nil)
        #expect(throws: EngineError.self) { try c.ids(section: 2) }
        #expect(throws: EngineError.self) { try c.object(at: IndexPath(section: 0, row: 1)) }
        _ = store
    }

    @Test func indexTitlesAndSectionForIndexTitle() throws {
        let (_, c) = try controller()
        // Sections A, B, a: titles A, B (the title of "a" is "A" again, listed once).
        #expect(c.sections.map(\.name) == ["A", "B", "a"])
        #expect(c.sectionIndexTitles == ["A", "B"])
        #expect(try c.section(forIndexTitle: "B", at: 1) == 1)
        #expect(try c.section(forIndexTitle: "A", at: 0) == 0)
        // An unknown title falls back to the title at `index`.
        #expect(try c.section(forIndexTitle: "#", at: 1) == 1)
        do {
            _ = try c.section(forIndexTitle: "#", at: 7)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidValue && error.detail("key") == "title")
        }
    }

    @Test func earliestLongestIncreasingMatchesBruteForce() {
        var rng = SeededRandom(seed: 99)
        for _ in 0..<400 {
            let m = rng.int(0..<9)
            let values = Array(0..<m).shuffled(using: &rng)
            var best: [Int] = []
            for mask in 0..<(1 << m) {
                let picked = (0..<m).filter { mask & (1 << $0) != 0 }
                guard zip(picked, picked.dropFirst()).allSatisfy({ values[$0] < values[$1] }) else { continue }
                if picked.count > best.count || (picked.count == best.count && picked.lexicographicallyPrecedes(best)) {
                    best = picked
                }
            }
            #expect(earliestLongestIncreasing(values) == best, "\(values)")
        }
    }

    /// A sort through two relationships: books by their author's publisher's name.
    @Test func changesTwoRelationshipsAwayReorderDependents() throws {
        let model = ObjectModel(entities: [
            Entity(
                name: "Pub", attributes: [Attribute(name: "name", type: .string)],
                relationships: [Relationship(name: "authors", destination: "Au", toMany: true, inverse: "pub")]),
            Entity(
                name: "Au", attributes: [Attribute(name: "name", type: .string)],
                relationships: [
                    Relationship(name: "pub", destination: "Pub", toMany: false, inverse: "authors"),
                    Relationship(name: "books", destination: "Bk", toMany: true, inverse: "au"),
                ]),
            Entity(
                name: "Bk", attributes: [Attribute(name: "title", type: .string)],
                relationships: [Relationship(name: "au", destination: "Au", toMany: false, inverse: "books")]),
        ])
        let store = TestStore(model: model)
        let p1 = store.insert("Pub", ["name": .string("A-pub")])
        let p2 = store.insert("Pub", ["name": .string("B-pub")])
        let a1 = store.insert("Au", ["name": .string("x"), "pub": .object(p1)])
        let a2 = store.insert("Au", ["name": .string("y"), "pub": .object(p2)])
        let b1 = store.insert("Bk", ["title": .string("one"), "au": .object(a1)])
        let b2 = store.insert("Bk", ["title": .string("two"), "au": .object(a2)])
        let b3 = store.insert("Bk", ["title": .string("three"), "au": .object(a2)])
        _ = store.endCycle()
        let c = FetchedResultsController(
            name: "bk", source: store, filter: TestFilter(entity: "Bk"),
            ordering: TestOrdering(entity: "Bk", sort: [(["au", "pub", "name"], true), (["title"], true)]),
            model: model)
        try c.performFetch()
        #expect(try c.ids(section: 0) == [b1, b3, b2])
        store.set(p1, "name", .string("C-pub")) // b1 goes last; b2, b3 do not change
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(
                    .move, b1, indexPath: IndexPath(section: 0, row: 0), newIndexPath: IndexPath(section: 0, row: 2)),
                .didChangeContent,
            ])
        store.set(a2, "pub", .object(p1)) // the middle step changes: b2, b3 now read C-pub, still before b1 by title
        let events = c.apply(store.endCycle())
        #expect(
            events.contains {
                if case .object(_, b2, _, _) = $0 { return true }
                return false
            })
        #expect(
            events.contains {
                if case .object(_, b3, _, _) = $0 { return true }
                return false
            })
        #expect(try c.ids(section: 0) == [b1, b3, b2])
        store.set(p2, "name", .string("Z-pub")) // nobody reads p2 any more
        #expect(c.apply(store.endCycle()) == [])
    }
}
