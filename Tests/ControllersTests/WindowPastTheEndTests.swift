import Model
import Testing

@testable import Controllers

/// A fetchOffset larger than the number of matches: changes near (or far from) the empty
/// window are cycles like any other (they crashed while recording the window's edge rows).
@Suite struct WindowPastTheEndTests {
    @Test(arguments: [0, 1, 3])
    func insertsAndDeletesBeyondAnOffsetPastTheEnd(existing: Int) throws {
        let store = TestStore(model: Library.model)
        for i in 0..<existing { store.insert("Book", ["title": .string("t\(i)"), "price": .integer(Int64(i))]) }
        _ = store.endCycle()
        let filter = TestFilter(entity: "Book")
        let ordering = TestOrdering(entity: "Book", sort: [(["price"], true)])
        let controller = FetchedResultsController(
            name: "far", source: store, filter: filter, ordering: ordering, fetchLimit: 3, fetchOffset: 8,
            model: Library.model)
        try controller.performFetch()
        var mirror = try freshResults(store, filter: filter, ordering: ordering, sectioned: false, offset: 8, limit: 3)
        for round in 0..<12 {
            if round % 3 == 2, let id = store.ids(of: "Book").first {
                store.delete(id)
            } else {
                store.insert("Book", ["title": .string("n\(round)"), "price": .integer(Int64(round))])
            }
            let events = controller.apply(store.endCycle())
            try mirror.apply(events) { store.snapshot(of: $0) }
            #expect(
                mirror
                    == (try freshResults(
                        store, filter: filter, ordering: ordering, sectioned: false, offset: 8, limit: 3)),
                "round \(round)")
        }
    }
}
