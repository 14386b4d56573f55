import Testing

@testable import Model

/// A cycle's change of an object, found by id: at random (`index(of:)`), or for ids asked in
/// ascending order from just past the last one found (`index(of:from:)`).
@Suite struct ChangeSetLookupTests {
    let set = ChangeSet(
        context: "main",
        changes: [("A", 1), ("A", 3), ("A", 5), ("A", 7), ("B", 2)].map {
            ChangeSet.Change(
                id: ObjectID(entity: $0.0, number: $0.1), before: nil, after: ["n": .integer($0.1)], changedKeys: ["n"])
        })

    @Test func findsEachChangeEitherWay() {
        var cursor = 0
        for (i, change) in set.changes.enumerated() {
            #expect(set.index(of: change.id) == i)
            #expect(set.index(of: change.id, from: cursor) == i)
            cursor = i + 1
        }
    }

    @Test func skipsAheadAndFindsNothingMissing() {
        #expect(set.index(of: ObjectID(entity: "A", number: 7), from: 1) == 3)
        #expect(set.index(of: ObjectID(entity: "B", number: 2), from: 0) == 4)
        #expect(set.index(of: ObjectID(entity: "A", number: 4), from: 0) == nil)
        #expect(set.index(of: ObjectID(entity: "A", number: 4)) == nil)
        #expect(set.index(of: ObjectID(entity: "C", number: 1), from: 2) == nil)
        #expect(set.index(of: ObjectID(entity: "A", number: 1), from: 5) == nil)
    }

    /// A run of consecutive numbers is found at the place its number gives, but never before
    /// `start`: what lies before it was found already.
    @Test func aDenseRunIsFoundByNumberFromStart() {
        let dense = ChangeSet(
            context: "main",
            changes: (1...5).map {
                ChangeSet.Change(id: ObjectID(entity: "A", number: $0), before: nil, after: [:], changedKeys: [])
            })
        #expect(dense.index(of: ObjectID(entity: "A", number: 4)) == 3)
        #expect(dense.index(of: ObjectID(entity: "A", number: 4), from: 3) == 3)
        #expect(dense.index(of: ObjectID(entity: "A", number: 5), from: 1) == 4)
        #expect(dense.index(of: ObjectID(entity: "A", number: 2), from: 3) == nil)
    }
}
