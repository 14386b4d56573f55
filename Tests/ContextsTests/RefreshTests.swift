import Model
import Store
import Testing

@testable import Contexts

/// changedValues, committedValues, refresh(_:mergeChanges:) and reset.
@Suite struct RefreshTests {
    /// A saved contact in group g, and a second root that writes behind main's back.
    func setUp() throws -> (ObjectGraph, Context, Context, ObjectID, ObjectID) {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let other = try graph.createContext("other", mergesChangesFromParent: false)
        let g = try main.insert("Group", ["title": .string("A")])
        let a = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30), "group": .object(g)])
        try main.save()
        return (graph, main, other, a, g)
    }

    @Test func changedValuesAreTheKeysThatDifferFromTheCommittedOnes() throws {
        let (_, main, _, a, g) = try setUp()
        #expect(try main.changedValues(a) == [:])
        try main.update(a, ["age": .integer(31)])
        #expect(try main.changedValues(a) == ["age": .integer(31)])
        #expect(try main.committedValues(a)?["age"] == .integer(30))
        // The one-to-many side of the group reads from the contact: both sides show as changed.
        try main.update(a, ["group": .null])
        #expect(try main.changedValues(a) == ["age": .integer(31), "group": .null])
        #expect(try main.changedValues(g) == ["members": .objects([])])
        #expect(try main.committedValues(g)?["members"] == .objects([a]))

        let b = try main.insert("Contact", ["name": .string("Bo")])
        #expect(try main.committedValues(b) == nil)
        #expect(try main.changedValues(b)["name"] == .string("Bo"))
    }

    @Test func aChildsCommittedValuesAreItsParents() throws {
        let (graph, main, _, a, _) = try setUp()
        let child = try graph.createContext("editor", parent: "main")
        try main.update(a, ["age": .integer(40)])
        try child.update(a, ["age": .integer(41)])
        #expect(try child.committedValues(a)?["age"] == .integer(40))
        #expect(try child.changedValues(a) == ["age": .integer(41)])
        #expect(try main.changedValues(a) == ["age": .integer(40)])
    }

    @Test func refreshWithoutChangesDropsTheUnsavedChangeAndKeepsInversesInStep() throws {
        let (_, main, _, a, g) = try setUp()
        let h = try main.insert("Group", ["title": .string("B")])
        try main.update(a, ["name": .string("Ann"), "group": .object(h)])
        try main.refresh(a, mergeChanges: false)
        #expect(try main.object(a)?["name"] == .string("Ana"))
        #expect(try main.object(a)?["group"] == .object(g))
        #expect(try main.object(g)?["members"] == .objects([a]))
        #expect(try main.object(h)?["members"] == .objects([]))
        #expect(main.changedObjects == ChangedObjects(inserted: [h], updated: [], deleted: []))
    }

    @Test func refreshOfAStaleChangeInARootThatDoesNotMergeAvoidsTheConflict() throws {
        let (_, main, other, a, _) = try setUp()
        try other.update(a, ["age": .integer(50)])
        try main.update(a, ["name": .string("Zed")])
        try main.save()
        // other did not merge main's save: saving now is a conflict under the error policy.
        let conflict = engineError { try other.save() }
        #expect(conflict?.kind == .mergeConflict)
        try other.refresh(a, mergeChanges: true)
        #expect(try other.object(a)?["name"] == .string("Zed"))
        #expect(try other.object(a)?["age"] == .integer(50))
        try other.save()
        #expect(try main.object(a)?["age"] == .integer(50))
        #expect(try main.object(a)?["name"] == .string("Zed"))
    }

    @Test func refreshRefusesInsertedAndDeletedObjectsWithoutChangingAnything() throws {
        let (_, main, _, a, _) = try setUp()
        let b = try main.insert("Contact", ["name": .string("Bo")])
        try main.delete(a)
        let before = main.changedObjects
        #expect(engineError { try main.refresh(b, mergeChanges: false) }?.kind == .invalidValue)
        #expect(engineError { try main.refresh(a, mergeChanges: false) }?.kind == .invalidValue)
        #expect(main.changedObjects == before)
        // Keeping the changes is allowed: the insert stays as it is.
        try main.refresh(b, mergeChanges: true)
        #expect(main.changedObjects == before)
        #expect(engineError { try main.refresh(.contact(999), mergeChanges: true) }?.kind == .unknownObject)
    }

    @Test func resetForgetsEveryChangeAsOneCycle() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context("main")
        let a = try main.insert("Contact", ["name": .string("Ana")])
        try main.save()
        try main.update(a, ["name": .string("Ann")])
        _ = try main.insert("Contact", ["name": .string("Bo")])
        main.processPendingChanges()
        _ = recorder.take()
        try main.reset()
        #expect(!main.hasChanges)
        let sets = recorder.take()
        #expect(sets.count == 1)
        #expect(sets.first?.changes.count == 2)
        #expect(try main.object(a)?["name"] == .string("Ana"))
    }
}
