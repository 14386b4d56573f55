import Model
import Testing

@testable import Controllers

/// Bulk loads trust nothing: entries handed over out of order are sorted before the tree
/// (and a controller's sections) are built from them.
@Suite struct BulkLoadTests {
    /// A source that hands over its rows in reverse, breaking `forEachKey`'s promise.
    final class ReversedSource: ControllerSource {
        let store: TestStore
        init(_ store: TestStore) { self.store = store }
        func snapshot(of id: ObjectID) -> Snapshot? { store.snapshot(of: id) }
        func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
            store.referrers(of: target, entity: entity, relationship: relationship)
        }
        func fetchKeys(filter: (any ObjectFilter)?, ordering: any ObjectOrdering) throws(EngineError) -> [(
            ObjectID, SortKey
        )] {
            try store.fetchKeys(filter: filter, ordering: ordering).reversed()
        }
    }

    @Test func loaderSortsEntriesGivenOutOfOrder() {
        let tree = CountedBTree(keyWidth: 1, leafCapacity: 4, innerCapacity: 4) {
            compareKeys($0, $1, ascending: [true])
        }
        var loader = BulkLoader(like: tree)
        var rng = SeededRandom(seed: 9)
        var entries: [(SortKey, Int64)] = (1...300).map { ([.integer(Int64($0 % 17))], Int64($0)) }
        entries.shuffle(using: &rng)
        for (key, id) in entries { loader.append(key, id) }
        #expect(!loader.inOrder)
        let loaded = loader.finish()
        #expect(loaded.count == 300 && checkInvariants(loaded) == [])
        let expected = entries.sorted { a, b in
            let c = compareKeys(a.0, b.0, ascending: [true])
            return c != 0 ? c < 0 : a.1 < b.1
        }
        #expect(loaded.ids(in: 0..<300) == expected.map(\.1))
    }

    @Test func controllerOverAnUnorderedSourceMatchesAnOrderedOne() throws {
        let model = ObjectModel(entities: [
            Entity(
                name: "C",
                attributes: [
                    Attribute(name: "name", type: .string), Attribute(name: "initial", type: .string),
                ])
        ])
        let store = TestStore(model: model)
        for name in ["Al", "Ann", "Ava", "al", "Bo", "Bea", "Cy", "Ann"] {
            store.insert("C", ["name": .string(name), "initial": .string(String(name.prefix(1)))])
        }
        _ = store.endCycle()
        func controller(_ source: any ControllerSource) throws -> FetchedResultsController {
            let c = FetchedResultsController(
                name: "c", source: source, filter: TestFilter(entity: "C"),
                ordering: TestOrdering(entity: "C", section: ["initial"], sort: [(["name"], true)]),
                sectionNameKeyPath: "initial", model: model)
            try c.performFetch()
            return c
        }
        let ordered = try controller(store)
        let reversed = try controller(ReversedSource(store))
        #expect(reversed.sections == ordered.sections)
        #expect(ordered.sections.map(\.name) == ["A", "B", "C", "a"])
        for s in ordered.sections.indices {
            #expect(try reversed.ids(section: s) == ordered.ids(section: s))
        }
    }
}
