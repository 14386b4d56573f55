import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// protocol.md §6 "Undo", other writers: an object another writer deleted (a sibling root's
/// save, another process's commit) stays deleted whatever the context undoes or redoes; what
/// the context deleted itself comes back.
@Suite struct UndoExternalDeleteTests {
    let dir = TempDir()

    /// `main` (with undo, both stacks empty) over a file store holding contact `a` (in group
    /// `g`) and group `h`.
    func setUp() throws -> (ObjectGraph, Recorder, Context, a: ObjectID, g: ObjectID, h: ObjectID) {
        let (graph, recorder) = try Fixture.graph(path: dir.file("u.sqlite"))
        let main = try graph.context("main")
        let g = try main.insert("Group", ["title": .string("G")])
        let h = try main.insert("Group", ["title": .string("H")])
        let a = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30), "group": .object(g)])
        try main.save()
        main.enableUndo(levels: nil)
        _ = recorder.take()
        return (graph, recorder, main, a, g, h)
    }

    /// What a controller on every contact and group of `context` shows, built from the
    /// change sets alone: it must equal a fresh fetch.
    struct Mirror {
        var objects: [ObjectID: Snapshot] = [:]

        init(_ context: Context) throws {
            for entity in ["Contact", "Group"] {
                for id in try context.fetch(entity: entity) { objects[id] = try context.object(id) }
            }
        }

        mutating func apply(_ sets: [ChangeSet], of context: Context) {
            for set in sets where set.context == context.name {
                for change in set.changes { objects[change.id] = change.after }
            }
        }

        func matches(_ context: Context) throws -> Bool {
            try objects == Mirror(context).objects
        }
    }

    /// The object stays deleted: not shown, not an unsaved change, not written by a save.
    func expectStaysDeleted(_ id: ObjectID, _ graph: ObjectGraph, _ main: Context) throws {
        #expect(try main.object(id) == nil)
        #expect(!main.changedObjects.inserted.contains(id))
        try main.save()
        #expect(try graph.store.read(id) == nil)
    }

    @Test func undoAfterASiblingRootsDeleteLeavesItDeleted() throws {
        let (graph, recorder, main, a, _, _) = try setUp()
        var mirror = try Mirror(main)
        try main.update(a, ["age": .integer(31)])
        main.processPendingChanges()
        let other = try graph.createContext("other")
        try other.delete(a)
        try other.save()
        try main.undo()
        mirror.apply(recorder.take(), of: main)
        #expect(try mirror.matches(main))
        #expect(try main.undoState().canRedo)
        try expectStaysDeleted(a, graph, main)
        try main.redo()
        #expect(try main.object(a) == nil)
    }

    @Test func redoAfterASiblingRootsDeleteLeavesItDeleted() throws {
        let (graph, recorder, main, a, _, _) = try setUp()
        var mirror = try Mirror(main)
        try main.update(a, ["age": .integer(31)])
        main.processPendingChanges()
        try main.undo()
        let other = try graph.createContext("other")
        try other.delete(a)
        try other.save()
        try main.redo()
        mirror.apply(recorder.take(), of: main)
        #expect(try mirror.matches(main))
        try expectStaysDeleted(a, graph, main)
    }

    @Test func undoAndRedoAfterAMergedSQLDeleteLeaveItDeleted() throws {
        let (graph, recorder, main, a, _, _) = try setUp()
        var mirror = try Mirror(main)
        let raw = try Connection(path: dir.file("u.sqlite"))
        try main.update(a, ["age": .integer(31)])
        main.processPendingChanges()
        try raw.execute("DELETE FROM \"Contact\" WHERE _pk = \(a.number)")
        try graph.mergeExternalChanges()
        try main.undo()
        mirror.apply(recorder.take(), of: main)
        #expect(try mirror.matches(main))
        try expectStaysDeleted(a, graph, main)
        try main.redo()
        try main.undo()
        #expect(try main.object(a) == nil && !main.hasChanges)
    }

    @Test func onlyWhatThisContextDeletedComesBack() throws {
        let (graph, _, main, a, g, h) = try setUp()
        // Deleted and saved here: undo brings it back, and a save writes it again.
        try main.delete(a)
        main.processPendingChanges()
        try main.save()
        try main.undo()
        #expect(try main.object(a)?["group"] == .object(g))
        try main.save()
        #expect(try graph.store.read(a) != nil)
        // Inserted and undone before any save: redo brings it back.
        let n = try main.insert("Contact", ["name": .string("New"), "group": .object(g)])
        main.processPendingChanges()
        try main.undo()
        try main.redo()
        #expect(try main.object(n)?["name"] == .string("New"))
        try main.save()
        // Deleted here (unsaved), then by a script: undoing the delete does not bring it back.
        try main.delete(a)
        main.processPendingChanges()
        let raw = try Connection(path: dir.file("u.sqlite"))
        try raw.execute("DELETE FROM \"Contact\" WHERE _pk = \(a.number)")
        try graph.mergeExternalChanges()
        try main.undo()
        try expectStaysDeleted(a, graph, main)
        // Saved here, its insert undone, then deleted by a sibling root: redo leaves it deleted.
        try main.undo()
        let other = try graph.createContext("other")
        try other.delete(n)
        try other.save()
        try main.redo()
        try expectStaysDeleted(n, graph, main)
        // Deleted in a child and pushed up, then deleted by a sibling root: the child's undo
        // leaves it deleted.
        let child = try graph.createContext("child", parent: "main")
        child.enableUndo(levels: nil)
        try child.delete(h)
        child.processPendingChanges()
        try child.save()
        try other.delete(h)
        try other.save()
        try child.undo()
        #expect(try child.object(h) == nil && !child.hasChanges)
    }

    @Test func aRootThatDoesNotMergeLeavesDeletedObjectsDeletedToo() throws {
        let (graph, _, main, a, _, _) = try setUp()
        let editor = try graph.createContext("editor", mergesChangesFromParent: false)
        editor.enableUndo(levels: nil)
        let n = try editor.insert("Contact", ["name": .string("New")])
        editor.processPendingChanges()
        try editor.save()
        try editor.update(a, ["age": .integer(31)])
        editor.processPendingChanges()
        // No cycle in editor: it sees the deletes only by reading the store.
        try main.delete(a)
        try main.delete(n)
        try main.save()
        try editor.undo()
        try editor.undo()
        try editor.redo()
        try editor.redo()
        #expect(try editor.object(a) == nil && editor.object(n) == nil)
        #expect(!editor.hasChanges)
    }

    @Test func aReferenceToADeletedObjectIsNotPutBack() throws {
        let (graph, recorder, main, a, g, h) = try setUp()
        var mirror = try Mirror(main)
        try main.update(a, ["group": .object(h)])
        main.processPendingChanges()
        let other = try graph.createContext("other")
        try other.delete(g)
        try other.save()
        try main.undo()
        mirror.apply(recorder.take(), of: main)
        #expect(try mirror.matches(main))
        // Back out of h; g is gone, so no group: the save is valid.
        #expect(try main.object(a)?["group"] == .null)
        #expect(try main.object(h)?["members"] == .objects([]))
        try main.save()
        #expect(try graph.store.read(a)?.values["group"] == .null)
    }
}
