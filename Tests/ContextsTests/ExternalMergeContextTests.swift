import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// Merging commits of a plain SQLite client into contexts: one cycle, exact before and
/// after values (to-one, the to-many read backwards from it, many-to-many links), unsaved
/// changes kept on top, own transactions skipped.
@Suite struct ExternalMergeContextTests {
    let dir = TempDir()

    @Test func scriptCommitIsOneCycleWithExactBeforeAndAfter() throws {
        let (graph, rec) = try Fixture.graph(path: dir.file("m.sqlite"))
        let main = try graph.context("main")
        let child = try graph.createContext("child", parent: "main")
        let g1 = try main.insert("Group", ["title": .string("one")])
        let g2 = try main.insert("Group", ["title": .string("two")])
        let t = try main.insert("Tag", ["label": .string("vip")])
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(3), "group": .object(g1)])
        let d = try main.insert("Contact", ["name": .string("Bo"), "age": .integer(4)])
        try main.save()
        // Own saves are skipped by the merge.
        #expect(try graph.mergeExternalChanges().isEmpty)
        #expect(graph.store.mergeCursor == (try graph.store.currentToken))
        try main.update(d, ["age": .integer(40)])
        graph.processPendingChanges()
        _ = rec.take()
        let ids = [c, d, g1, g2, t]
        var before: [ObjectID: Snapshot?] = [:]
        for id in ids { before[id] = try main.object(id) }

        let raw = try Connection(path: dir.file("m.sqlite"))
        try raw.execute(
            """
            BEGIN;
            UPDATE "Contact" SET "group" = \(g2.number), name = 'Ana B' WHERE _pk = \(c.number);
            UPDATE "Contact" SET name = 'Bob' WHERE _pk = \(d.number);
            INSERT INTO "_join_Contact_tags" (a, b) VALUES (\(c.number), \(t.number));
            INSERT INTO "Contact" (name, age) VALUES ('Cy', 9);
            COMMIT
            """)
        #expect(try graph.hasExternalChanges())
        let sets = try graph.mergeExternalChanges()
        #expect(try !graph.hasExternalChanges())
        #expect(sets.map(\.context) == ["main", "child"])
        #expect(rec.take().map(\.context) == ["main", "child"])
        #expect(sets.map(\.reason) == [.external, .external], "the merge's cycles say why, children too")
        let newID = ObjectID(entity: "Contact", number: raw.lastInsertRowID)
        let changes = sets[0].changes
        #expect(changes.map(\.id) == [c, d, newID, g1, g2, t])
        for change in changes {
            #expect(change.before == (before[change.id] ?? nil), "\(change.id)")
            #expect(change.after == (try main.object(change.id)), "\(change.id)")
        }
        // The unsaved age stays on top of the merged name, based on the new version.
        #expect(try main.object(d)?["name"] == .string("Bob"))
        #expect(try main.object(d)?["age"] == .integer(40))
        #expect(try child.object(c)?["tags"] == .objects([t]))
        try main.save()
        #expect(try graph.store.read(d)?.values["name"] == .string("Bob"))
        #expect(try graph.mergeExternalChanges().isEmpty)
    }

    /// A script deletes objects this context was about to update and delete: the save merges
    /// that first, drops both changes (the objects are gone either way) and writes and counts
    /// only its insert, under the default `error` policy with no conflict. (With read
    /// snapshots off, as in a bare engine, the save does not merge: `mergeConflict`.)
    @Test func changesToObjectsAScriptDeletedAreDroppedAndNotCounted() throws {
        let (graph, _) = try Fixture.graph(path: dir.file("d.sqlite"))
        graph.store.readSnapshots = .held
        let main = try graph.context("main")
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(3)])
        let d = try main.insert("Contact", ["name": .string("Bo"), "age": .integer(4)])
        try main.save()
        try main.delete(c)
        try main.update(d, ["age": .integer(40)])
        let e = try main.insert("Contact", ["name": .string("Cy"), "age": .integer(5)])
        let raw = try Connection(path: dir.file("d.sqlite"))
        try raw.execute("DELETE FROM \"Contact\" WHERE _pk IN (\(c.number), \(d.number))")
        let before = try graph.store.currentToken

        #expect(try main.save() == SaveCounts(inserted: 1, updated: 0, deleted: 0))
        let own = try graph.store.history(after: before).filter { $0.origin == graph.store.origin }
        #expect(own.map { $0.changes.map(\.id) } == [[e]])
        #expect(own.first?.changes.map(\.operation) == [.insert])
        #expect(try main.object(c) == nil && main.object(d) == nil)
        #expect(!main.hasChanges)
    }

    @Test func rolledBackScriptAndOwnSavesMergeNothing() throws {
        let (graph, rec) = try Fixture.graph(path: dir.file("r.sqlite"))
        let main = try graph.context("main")
        try main.insert("Group", ["title": .string("g")])
        try main.save()
        graph.processPendingChanges()
        _ = rec.take()
        let raw = try Connection(path: dir.file("r.sqlite"))
        try raw.execute("BEGIN; INSERT INTO \"Group\" (title) VALUES ('no'); ROLLBACK")
        #expect(try graph.mergeExternalChanges().isEmpty)
        #expect(rec.take().isEmpty)
    }
}
