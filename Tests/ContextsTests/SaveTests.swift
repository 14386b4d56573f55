import Model
import Store
import TestSupport
import Testing

@testable import Contexts

@Suite struct SaveTests {
    @Test func childIntoParentIntoStore() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let child = try graph.createContext("editor", parent: "main")
        let g = try main.insert("Group", ["title": .string("A")])
        try main.save()
        rec.sets.removeAll()

        let c = try child.insert("Contact", ["name": .string("Ana"), "group": .object(g)])
        #expect(c == .contact(1))
        #expect(try main.object(c) == nil)
        #expect(try child.object(g)?["members"] == .objects([c]))
        #expect(try main.object(g)?["members"] == .objects([]))
        graph.processPendingChanges()
        #expect(rec.take().map(\.context) == ["editor"])

        let counts = try child.save()
        // The group's members are the contact's group read backwards: not an update of the group.
        #expect(counts == SaveCounts(inserted: 1, updated: 0, deleted: 0))
        let sets = rec.take()
        #expect(sets.map(\.context) == ["main"])
        #expect(sets[0].changes.map(\.id) == [c, g])
        #expect(try main.object(c)?["name"] == .string("Ana"))
        #expect(try main.object(g)?["members"] == .objects([c]))
        #expect(try graph.store.read(c) == nil)
        #expect(!child.hasChanges && main.hasChanges)

        try main.save()
        #expect(try graph.store.read(c)?.values["group"] == .object(g))
        #expect(try graph.store.read(g)?.values["members"] == .objects([c]))
        #expect(rec.take().isEmpty)
    }

    @Test func childSeesParentChangesAsACycle() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let child = try graph.createContext("editor", parent: "main")
        let c = try main.insert("Contact", ["name": .string("Ana")])
        graph.processPendingChanges()
        #expect(rec.take().map(\.context) == ["main", "editor"])
        #expect(try child.object(c)?["name"] == .string("Ana"))
        // The child's own change hides the parent's later ones.
        try child.update(c, ["age": .integer(5)])
        graph.processPendingChanges()
        rec.sets.removeAll()
        try main.update(c, ["name": .string("Bo")])
        graph.processPendingChanges()
        #expect(rec.take().map(\.context) == ["main"])
        #expect(try child.object(c)?["name"] == .string("Ana"))
        // Only the key the child changed goes up: the parent's name stays.
        try child.save()
        #expect(try main.object(c)?["name"] == .string("Bo"))
        #expect(try main.object(c)?["age"] == .integer(5))
    }

    @Test func rollbackAtEveryLevel() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let child = try graph.createContext("child", parent: "main")
        let grandchild = try graph.createContext("grandchild", parent: "child")
        let c = try main.insert("Contact", ["name": .string("Ana")])
        try main.save()
        rec.sets.removeAll()

        try grandchild.update(c, ["name": .string("G")])
        try grandchild.rollback()
        #expect(try grandchild.object(c)?["name"] == .string("Ana"))

        try grandchild.update(c, ["name": .string("G")])
        try grandchild.save()
        #expect(try child.object(c)?["name"] == .string("G"))
        rec.sets.removeAll()
        try child.rollback()
        #expect(try child.object(c)?["name"] == .string("Ana"))
        #expect(try grandchild.object(c)?["name"] == .string("Ana"))
        // The rollback is a cycle in the child and, through it, in the grandchild.
        #expect(rec.take().map(\.context) == ["child", "grandchild"])

        let d = try main.insert("Contact", ["name": .string("Dan")])
        try main.update(c, ["age": .integer(9)])
        main.processPendingChanges()
        rec.sets.removeAll()
        try main.rollback()
        #expect(try main.object(d) == nil)
        #expect(try main.object(c)?["age"] == .integer(0))
        #expect(!main.hasChanges)
        let sets = rec.take()
        #expect(sets.map(\.context) == ["main", "child", "grandchild"])
        #expect(sets.first?.changes.map(\.id) == [c, d])
        #expect(sets.first?.changes.last?.isDelete == true)
        // A rollback with nothing to roll back is no cycle.
        try main.rollback()
        #expect(rec.take().isEmpty)
        #expect(try graph.store.read(c)?.values["name"] == .string("Ana"))
    }

    @Test func savesMergeIntoSiblingRoots() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let other = try graph.createContext("other")
        let deaf = try graph.createContext("deaf", mergesChangesFromParent: false)
        _ = try graph.createContext("otherChild", parent: "other")
        let c = try main.insert("Contact", ["name": .string("Ana")])
        try main.save()
        let sets = rec.take()
        // main's own cycle first, then the merges, in creation order; never into `deaf`.
        #expect(sets.map(\.context) == ["main", "other", "otherChild"])
        #expect(sets[1].changes.first?.isInsert == true)
        _ = deaf

        // A merge keeps the receiving context's own changes to other keys.
        try other.update(c, ["age": .integer(40)])
        graph.processPendingChanges()
        rec.sets.removeAll()
        try main.update(c, ["name": .string("Ana B")])
        try main.save()
        #expect(try other.object(c)?["name"] == .string("Ana B"))
        #expect(try other.object(c)?["age"] == .integer(40))
        let merge = rec.take().first { $0.context == "other" }
        #expect(merge?.changes.first?.changedKeys == ["name"])
        // Rebased on the merged version: its save is no conflict.
        try other.save()
        #expect(try graph.store.read(c)?.values["age"] == .integer(40))
        #expect(try graph.store.read(c)?.values["name"] == .string("Ana B"))
        #expect(try graph.store.read(c)?.version == 3)
    }

    /// Two roots without merging: `a` saves name, then `b` saves its own edits of the same object.
    private func conflict(_ policy: MergePolicy, bEdits: Snapshot, deleteInB: Bool = false) throws -> (
        ObjectGraph, Context, ObjectID, EngineError?
    ) {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let a = try graph.createContext("a", mergesChangesFromParent: false)
        let b = try graph.createContext("b", mergesChangesFromParent: false, mergePolicy: policy)
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(1)])
        try main.save()
        if deleteInB { try b.delete(c) } else { try b.update(c, bEdits) }
        try a.update(c, ["name": .string("Alice"), "age": .integer(2)])
        try a.save()
        return (graph, b, c, engineError { try b.save() })
    }

    @Test func errorPolicyRefusesAndWritesNothing() throws {
        let (graph, b, c, error) = try conflict(.error, bEdits: ["name": .string("Bea")])
        #expect(error?.kind == .mergeConflict)
        guard case .list(let conflicts)? = error?.detail("conflicts") else {
            Issue.record("no conflicts")
            return
        }
        #expect(
            conflicts == [
                .record([
                    ("id", .string(c.description)), ("keys", .list([.string("name"), .string("age")])),
                    ("ours", .record([("name", .string("Bea")), ("age", .int(1))])),
                    ("theirs", .record([("name", .string("Alice")), ("age", .int(2))])),
                ])
            ])
        #expect(try graph.store.read(c)?.values["name"] == .string("Alice"))
        #expect(try b.object(c)?["name"] == .string("Bea"))
        #expect(b.hasChanges)
    }

    @Test func objectTrumpKeepsOurKeysAndTheirOthers() throws {
        let (graph, b, c, error) = try conflict(.objectTrump, bEdits: ["name": .string("Bea")])
        #expect(error == nil)
        #expect(try graph.store.read(c)?.values["name"] == .string("Bea"))
        #expect(try graph.store.read(c)?.values["age"] == .integer(2))
        #expect(try b.object(c)?["age"] == .integer(2))
    }

    @Test func storeTrumpKeepsTheirKeysAndOurOthers() throws {
        let (graph, _, c, error) = try conflict(.storeTrump, bEdits: ["name": .string("Bea"), "group": .null])
        #expect(error == nil)
        #expect(try graph.store.read(c)?.values["name"] == .string("Alice"))
        #expect(try graph.store.read(c)?.values["age"] == .integer(2))
        let (graph2, _, c2, error2) = try conflict(.storeTrump, bEdits: ["name": .string("Bea")])
        #expect(error2 == nil)
        #expect(try graph2.store.read(c2)?.values["name"] == .string("Alice"))
    }

    @Test func storeTrumpKeepsOurChangeToAKeyTheyLeftAlone() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let a = try graph.createContext("a", mergesChangesFromParent: false)
        let b = try graph.createContext("b", mergesChangesFromParent: false, mergePolicy: .storeTrump)
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(1)])
        try main.save()
        try b.update(c, ["name": .string("Bea"), "age": .integer(30)])
        try a.update(c, ["age": .integer(2)])
        try a.save()
        try b.save()
        #expect(
            try graph.store.read(c)?.values == [
                "name": .string("Bea"), "age": .integer(2), "group": .null,
                "tags": .objects([]), "notes": .objects([]), "badge": .null,
            ])
    }

    @Test func overwriteWritesOurWholeObject() throws {
        let (graph, _, c, error) = try conflict(.overwrite, bEdits: ["name": .string("Bea")])
        #expect(error == nil)
        #expect(try graph.store.read(c)?.values["name"] == .string("Bea"))
        #expect(try graph.store.read(c)?.values["age"] == .integer(1))
    }

    @Test func rollbackPolicyDropsOurChanges() throws {
        let (graph, b, c, error) = try conflict(.rollback, bEdits: ["name": .string("Bea")])
        #expect(error == nil)
        #expect(try graph.store.read(c)?.values["name"] == .string("Alice"))
        #expect(try b.object(c)?["name"] == .string("Alice"))
        #expect(!b.hasChanges)
    }

    @Test func deleteAgainstAnUpdateFollowsThePolicy() throws {
        let (g1, _, c1, e1) = try conflict(.error, bEdits: [:], deleteInB: true)
        #expect(e1?.kind == .mergeConflict)
        #expect(try g1.store.read(c1) != nil)
        let (g2, _, c2, e2) = try conflict(.objectTrump, bEdits: [:], deleteInB: true)
        #expect(e2 == nil)
        #expect(try g2.store.read(c2) == nil)
        let (g3, _, c3, e3) = try conflict(.storeTrump, bEdits: [:], deleteInB: true)
        #expect(e3 == nil)
        #expect(try g3.store.read(c3)?.values["name"] == .string("Alice"))
    }

    @Test func failedSaveLeavesStoreAndContextAsTheyWere() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let ok = try main.insert("Contact", ["name": .string("Ana")])
        try main.save()
        let bad = try main.insert("Contact", ["age": .integer(3)])
        try main.update(ok, ["age": .integer(50)])
        let error = engineError { try main.save() }
        #expect(error?.kind == .validation)
        guard case .list(let errors)? = error?.detail("errors") else {
            Issue.record("no errors")
            return
        }
        #expect(
            errors == [
                .record([
                    ("id", .string(bad.description)), ("key", .string("name")),
                    ("reason", .string("required value missing")),
                ])
            ])
        #expect(try graph.store.read(bad) == nil)
        #expect(try graph.store.read(ok)?.values["age"] == .integer(0))
        #expect(try graph.store.read(ok)?.version == 1)
        #expect(try main.object(bad)?["age"] == .integer(3))
        #expect(try main.object(ok)?["age"] == .integer(50))
        try main.update(bad, ["name": .string("Bo")])
        #expect(try main.save() == SaveCounts(inserted: 1, updated: 1, deleted: 0))
    }

    @Test func persistsAcrossRestart() throws {
        let dir = TempDir()
        let file = dir.file("restart.sqlite")
        let c: ObjectID
        let g: ObjectID
        do {
            let (graph, _) = try Fixture.graph(path: file)
            let main = try graph.context("main")
            g = try main.insert("Group", ["title": .string("A")])
            c = try main.insert("Contact", ["name": .string("Ana"), "group": .object(g)])
            _ = try main.insert("Contact", ["name": .string("saved")])
            try main.save()
            _ = try main.insert("Contact", ["name": .string("never saved")])
            graph.close()
        }
        let (graph, _) = try Fixture.graph(path: file)
        let main = try graph.context("main")
        #expect(try main.object(c)?["name"] == .string("Ana"))
        #expect(try main.object(g)?["members"] == .objects([c]))
        #expect(try main.count(entity: "Contact") == 2)
        #expect(try main.insert("Contact", ["name": .string("next")]) == .contact(4))
    }

    @Test func contextsByName() throws {
        let (graph, _) = try Fixture.graph()
        #expect(engineError { try graph.createContext("main") }?.kind == .duplicateName)
        #expect(engineError { try graph.createContext("x", parent: "nope") }?.kind == .unknownContext)
        try graph.createContext("x")
        try graph.createContext("y", parent: "x")
        try graph.closeContext("x")
        #expect(engineError { _ = try graph.context("y") }?.kind == .unknownContext)
        #expect(graph.contexts.map(\.name) == ["main"])
    }
}
