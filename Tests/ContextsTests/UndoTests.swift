import Model
import Store
import Testing

@testable import Contexts

/// The rules of undo and redo (protocol.md §6 "Undo"), one by one.
@Suite struct UndoTests {
    func setUp() throws -> (ObjectGraph, Context, ObjectID) {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        main.enableUndo(levels: nil)
        let a = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30)])
        try main.save()
        return (graph, main, a)
    }

    @Test func aSavedEditUndoesIntoAnUnsavedChangeAndRedoesBack() throws {
        let (_, main, a) = try setUp()
        try main.update(a, ["age": .integer(31)])
        main.processPendingChanges()
        try main.save()
        #expect(!main.hasChanges)
        try main.undo()
        #expect(try main.object(a)?["age"] == .integer(30))
        #expect(main.changedObjects.updated == [a])
        try main.redo()
        #expect(!main.hasChanges)
        // The first insert was undoable too: undoing it deletes the saved object.
        try main.undo()
        try main.undo()
        #expect(try main.object(a) == nil)
        #expect(main.changedObjects.deleted == [a])
    }

    @Test func undoAndRedoAreChangeCyclesWithTheirOwnReason() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context("main")
        main.enableUndo(levels: nil)
        let a = try main.insert("Contact", ["name": .string("Ana")])
        main.processPendingChanges()
        _ = recorder.take()
        try main.undo()
        #expect(recorder.take().map(\.reason) == [.undo])
        try main.redo()
        let redone = recorder.take()
        #expect(redone.map(\.reason) == [.redo])
        #expect(redone.first?.changes.map(\.id) == [a])
        // Undo and redo are not edits: the stacks are as before.
        #expect(try main.undoState().undoCount == 1 && main.undoState().redoCount == 0)
    }

    @Test func aNewEditClearsRedoAndNothingToUndoIsANoOp() throws {
        let (_, main, a) = try setUp()
        try main.undo()
        try main.undo()
        #expect(try main.undoState().canUndo == false)
        #expect(try main.undoState().canRedo == true)
        try main.redo()
        try main.update(a, ["name": .string("Ann")])
        main.processPendingChanges()
        #expect(try main.undoState().canRedo == false)
    }

    @Test func rollbackAndResetClearTheStacks() throws {
        let (_, main, a) = try setUp()
        try main.update(a, ["age": .integer(1)])
        main.processPendingChanges()
        try main.rollback()
        #expect(try main.undoState().canUndo == false && main.undoState().canRedo == false)
        try main.update(a, ["age": .integer(2)])
        main.processPendingChanges()
        try main.reset()
        #expect(try main.undoState().canUndo == false)
    }

    @Test func aDeleteUndoesWithItsRelationshipsAndCascades() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let g = try main.insert("Group", ["title": .string("G")])
        let t = try main.insert("Tag", ["label": .string("t")])
        let a = try main.insert("Contact", ["name": .string("Ana"), "group": .object(g), "tags": .objects([t])])
        let n = try main.insert("Note", ["text": .string("n"), "contact": .object(a)])
        try main.save()
        main.enableUndo(levels: nil)
        try main.delete(a)
        main.processPendingChanges()
        #expect(try main.object(n) == nil)
        #expect(try main.object(t)?["contacts"] == .objects([]))
        try main.undo()
        #expect(try main.object(a)?["group"] == .object(g))
        #expect(try main.object(g)?["members"] == .objects([a]))
        #expect(try main.object(t)?["contacts"] == .objects([a]))
        #expect(try main.object(n)?["contact"] == .object(a))
        #expect(!main.hasChanges)
    }

    @Test func explicitGroupsAreOneActionWithItsName() throws {
        let (_, main, a) = try setUp()
        try main.beginUndoGrouping(actionName: "Rename")
        try main.update(a, ["name": .string("Ann")])
        main.processPendingChanges()
        try main.update(a, ["age": .integer(40)])
        main.processPendingChanges()
        #expect(try main.undoState().undoActionName == "Rename")
        try main.endUndoGrouping()
        #expect(engineError { try main.endUndoGrouping() }?.kind == .invalidValue)
        try main.undo()
        #expect(try main.object(a)?["name"] == .string("Ana"))
        #expect(try main.object(a)?["age"] == .integer(30))
        #expect(try main.undoState().redoActionName == "Rename")
    }

    @Test func undoKeepsWhatAnotherContextChangedMeanwhile() throws {
        let (graph, main, a) = try setUp()
        try main.update(a, ["age": .integer(31)])
        main.processPendingChanges()
        try main.save()
        let other = try graph.createContext("other")
        try other.update(a, ["name": .string("Anna"), "age": .integer(50)])
        try other.save()
        // main merged other's save; undo puts back only the key main's group changed.
        try main.undo()
        #expect(try main.object(a)?["age"] == .integer(30))
        #expect(try main.object(a)?["name"] == .string("Anna"))
        // An object another context deleted stays deleted.
        try other.delete(a)
        try other.save()
        try main.undo()
        #expect(try main.object(a) == nil)
    }

    @Test func levelsKeepTheNewestGroups() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        main.enableUndo(levels: 2)
        let a = try main.insert("Contact", ["name": .string("A"), "age": .integer(0)])
        main.processPendingChanges()
        for age in 1...3 {
            try main.update(a, ["age": .integer(Int64(age))])
            main.processPendingChanges()
        }
        try main.undo()
        try main.undo()
        try main.undo()
        #expect(try main.object(a)?["age"] == .integer(1))
    }

    @Test func aChildsSaveIsUndoableInItsParentAndAContextWithoutUndoRefuses() throws {
        let (graph, main, a) = try setUp()
        let child = try graph.createContext("child", parent: "main")
        #expect(engineError { try child.undo() }?.kind == .invalidValue)
        try child.update(a, ["age": .integer(77)])
        try child.save()
        try main.undo()
        #expect(try main.object(a)?["age"] == .integer(30))
        #expect(try child.object(a)?["age"] == .integer(30))
    }
}
