import Model
import Predicates
import Store
import TestSupport
import Testing

@testable import Contexts

/// A fetch over unsaved changes merges the store's rows with the changed objects evaluated in
/// memory (KeyMerge). Whatever the order (integers up or down, ties, text first), the answer
/// must be a brute-force sort of every object the context sees, and a window of it.
@Suite struct UnsavedMergeTests {
    static let orders: [[SortDescriptor]] = [
        [SortDescriptor(key: "age")], [SortDescriptor(key: "age", ascending: false)],
        [SortDescriptor(key: "age", ascending: false), SortDescriptor(key: "name")],
        [SortDescriptor(key: "name", comparator: .caseInsensitiveCompare), SortDescriptor(key: "age")],
    ]

    @Test(arguments: [UInt64(71), 72, 73])
    func theMergeIsABruteForceSort(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let graph = ObjectGraph(store: try SQLiteStore.open(model: Fixture.model) { try SQLFunctions.register(on: $0) })
        let main = try graph.context(ObjectGraph.mainContext)
        let names = ["ann", "Bob", "cid", "Ann", "bob"]
        var ids: [ObjectID] = []
        for _ in 0..<120 {
            ids.append(
                try main.insert(
                    "Contact", ["name": .string(names[rng.below(5)]), "age": .integer(Int64(rng.below(30)) - 10)]))
        }
        try main.save()
        // Unsaved: new ages (many ties), new objects, deletions.
        for _ in 0..<40 { try main.update(ids[rng.below(ids.count)], ["age": .integer(Int64(rng.below(30)) - 10)]) }
        for _ in 0..<10 { _ = try main.insert("Contact", ["name": .string(names[rng.below(5)]), "age": .integer(3)]) }
        for _ in 0..<10 { try? main.delete(ids[rng.below(ids.count)]) }
        let compiler = RequestCompiler(model: Fixture.model)
        let everyone = try main.fetch(entity: "Contact").sorted()
        for descriptors in Self.orders {
            for window in [(nil, 0), (Optional(17), 5)] as [(Int?, Int)] {
                let request = try compiler.compile(
                    FetchRequest(entity: "Contact", predicate: "age > -5", sortDescriptors: descriptors))
                let got = try main.fetch(
                    entity: "Contact", filter: request.filter, ordering: request.ordering, limit: window.0,
                    offset: window.1)
                var expected = try everyone.compactMap { id -> (ObjectID, SortKey)? in
                    guard let v = try main.object(id), request.filter.matches(id, v, in: main) else { return nil }
                    return (id, request.ordering.key(of: id, v, in: main))
                }
                expected.sort {
                    let c = request.ordering.compare($0.1, $1.1)
                    return c != 0 ? c < 0 : $0.0.number < $1.0.number
                }
                let all = expected.map(\.0)
                let start = min(window.1, all.count)
                let cut = Array(all[start..<(window.0.map { min(all.count, start + $0) } ?? all.count)])
                #expect(got == cut, "seed \(seed) \(descriptors.map(\.key)) window \(window)")
            }
        }
    }
}
