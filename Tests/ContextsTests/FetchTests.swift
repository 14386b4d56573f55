import Model
import Testing

@testable import Contexts

@Suite struct FetchTests {
    /// Five saved contacts (ages 50, 40, 30, 20, 10) in group A.
    private func seeded() throws -> (ObjectGraph, Context, [ObjectID], ObjectID) {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let g = try main.insert("Group", ["title": .string("A")])
        var ids: [ObjectID] = []
        for (i, name) in ["e", "d", "c", "b", "a"].enumerated() {
            ids.append(
                try main.insert(
                    "Contact", ["name": .string(name), "age": .integer(Int64(50 - 10 * i)), "group": .object(g)]))
        }
        try main.save()
        return (graph, main, ids, g)
    }

    @Test func fetchOrdersByKeyThenIdAndCuts() throws {
        let (_, main, ids, _) = try seeded()
        let byName = ByAttribute(entity: "Contact", key: "name")
        #expect(try main.fetch(entity: "Contact", ordering: byName) == ids.reversed())
        #expect(try main.fetch(entity: "Contact") == ids)
        #expect(try main.fetch(entity: "Contact", ordering: byName, limit: 2, offset: 1) == [ids[3], ids[2]])
        let keys = try main.fetchKeys(
            entity: "Contact", filter: nil, ordering: ByAttribute(entity: "Contact", key: "age", ascending: false))
        #expect(keys.map(\.0) == ids)
        #expect(keys.map(\.1) == [[.integer(50)], [.integer(40)], [.integer(30)], [.integer(20)], [.integer(10)]])
    }

    @Test func pendingChangesAreIncluded() throws {
        let (_, main, ids, _) = try seeded()
        let byName = ByAttribute(entity: "Contact", key: "name")
        try main.update(ids[0], ["name": .string("aa")]) // e -> aa: moves to second
        try main.delete(ids[4]) // a gone
        let new = try main.insert("Contact", ["name": .string("bb"), "age": .integer(20)])
        #expect(try main.fetch(entity: "Contact", ordering: byName) == [ids[0], ids[3], new, ids[2], ids[1]])
        #expect(try main.fetch(entity: "Contact", ordering: byName, limit: 2, offset: 1) == [ids[3], new])
        let twenty = Equals(entity: "Contact", key: "age", value: .integer(20))
        #expect(try main.count(entity: "Contact", filter: twenty) == 2)
        #expect(try main.count(entity: "Contact") == 5)
        #expect(try main.fetch(entity: "Contact", filter: twenty, ordering: byName) == [ids[3], new])
    }

    /// The streamed form gives what `fetchKeys` gives, with and without unsaved changes to
    /// merge, though its key buffer is reused between rows.
    @Test func forEachKeyStreamsWhatFetchKeysReturns() throws {
        let (_, main, ids, _) = try seeded()
        let byName = ByAttribute(entity: "Contact", key: "name")
        func streamed() throws -> [(ObjectID, SortKey)] {
            var rows: [(ObjectID, SortKey)] = []
            try main.forEachKey(filter: nil, ordering: byName) {
                rows.append((ObjectID(entity: "Contact", number: $0), $1))
            }
            return rows
        }
        let saved = try main.fetchKeys(entity: "Contact", filter: nil, ordering: byName)
        #expect(try streamed().map(\.0) == saved.map(\.0) && streamed().map(\.1) == saved.map(\.1))
        #expect(saved.map(\.1) == [[.string("a")], [.string("b")], [.string("c")], [.string("d")], [.string("e")]])
        try main.update(ids[0], ["name": .string("bb")])
        try main.delete(ids[3])
        let pending = try main.fetchKeys(entity: "Contact", filter: nil, ordering: byName)
        #expect(pending.map(\.1) == [[.string("a")], [.string("bb")], [.string("c")], [.string("d")]])
        #expect(try streamed().map(\.0) == pending.map(\.0) && streamed().map(\.1) == pending.map(\.1))
    }

    @Test func childSeesItsChainButSiblingsDoNot() throws {
        let (graph, main, ids, _) = try seeded()
        let child = try graph.createContext("child", parent: "main")
        let other = try graph.createContext("other")
        try main.update(ids[1], ["age": .integer(99)])
        try child.delete(ids[0])
        let ninetyNine = Equals(entity: "Contact", key: "age", value: .integer(99))
        #expect(try child.fetch(entity: "Contact", filter: ninetyNine) == [ids[1]])
        #expect(try child.count(entity: "Contact") == 4)
        #expect(try main.count(entity: "Contact") == 5)
        #expect(try other.count(entity: "Contact", filter: ninetyNine) == 0)
    }

    @Test func keyPathThroughAChangedObjectIsEvaluatedInMemory() throws {
        let (graph, main, ids, g) = try seeded()
        let b = try main.insert("Group", ["title": .string("B")])
        try main.save()
        let inA = RelatedEquals(
            entity: "Contact", relationship: "group", destination: "Group", key: "title", value: .string("A"))
        let inZ = RelatedEquals(
            entity: "Contact", relationship: "group", destination: "Group", key: "title", value: .string("Z"))
        #expect(try main.count(entity: "Contact", filter: inA) == 5)
        // Renaming the group changes which contacts match, though no contact changed.
        try main.update(g, ["title": .string("Z")])
        #expect(try main.count(entity: "Contact", filter: inA) == 0)
        #expect(try main.fetch(entity: "Contact", filter: inZ) == ids)
        // Moving one contact into B (renamed Z too) after the fact.
        try main.update(b, ["title": .string("Z")])
        try main.update(ids[2], ["group": .object(b)])
        #expect(
            try main.fetch(entity: "Contact", filter: inZ, ordering: ByAttribute(entity: "Contact", key: "name"))
                == ids.reversed())
        let child = try graph.createContext("child", parent: "main")
        try child.update(g, ["title": .string("A")])
        #expect(try child.fetch(entity: "Contact", filter: inA) == [ids[0], ids[1], ids[3], ids[4]])
    }

    @Test func requestsOnTheWrongEntityAreRefused() throws {
        let (_, main, _, _) = try seeded()
        #expect(engineError { _ = try main.fetch(entity: "Nope") }?.kind == .unknownEntity)
        #expect(
            engineError { _ = try main.fetch(entity: "Group", ordering: ByAttribute(entity: "Contact", key: "name")) }?
                .kind == .invalidValue)
    }

    @Test func referrersFollowTheView() throws {
        let (_, main, ids, g) = try seeded()
        try main.update(ids[0], ["group": .null])
        #expect(main.referrers(of: g, entity: "Contact", relationship: "group") == Array(ids[1...]))
    }
}
