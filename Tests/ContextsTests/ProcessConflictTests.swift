import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// Saves when other writers share the file: a plain SQLite connection (a script) and a
/// second store, as another fetchd process would be.
@Suite struct ProcessConflictTests {
    let dir = TempDir()
    var file: String { dir.file("shared.sqlite") }

    func plain() throws -> Connection {
        let db = try Connection(path: file)
        try db.execute("PRAGMA busy_timeout=2000; PRAGMA foreign_keys=ON")
        return db
    }

    /// A graph on the file with one saved contact.
    func seeded(policy: MergePolicy = .error) throws -> (ObjectGraph, Context, ObjectID) {
        let graph = ObjectGraph(store: try SQLiteStore.open(path: file, model: Fixture.model))
        let main = try graph.context("main")
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30)])
        try main.save()
        let editor = try graph.createContext("editor", mergesChangesFromParent: false, mergePolicy: policy)
        return (graph, editor, c)
    }

    @Test func scriptCommitSinceTheReadIsAMergeConflict() throws {
        let (graph, editor, c) = try seeded()
        try editor.update(c, ["name": .string("Ana B")])
        try plain().execute("UPDATE \"Contact\" SET age = 31 WHERE _pk = \(c.number)")
        let error = engineError { try editor.save() }
        #expect(error?.kind == .mergeConflict)
        // Nothing written; the context keeps its change and can save once it rolled back.
        #expect(try graph.store.read(c)?.values["name"] == .string("Ana"))
        #expect(try graph.store.read(c)?.values["age"] == .integer(31))
        #expect(editor.hasChanges)
        try editor.rollback()
        try editor.update(c, ["name": .string("Ana B")])
        try editor.save()
        #expect(try graph.store.read(c)?.values == (try editor.object(c)))
        #expect(try graph.store.read(c)?.values["age"] == .integer(31))
    }

    @Test func objectTrumpKeepsTheScriptsKeyAndOurs() throws {
        let (graph, editor, c) = try seeded(policy: .objectTrump)
        try editor.update(c, ["name": .string("Ana B")])
        try plain().execute("UPDATE \"Contact\" SET age = 31 WHERE _pk = \(c.number)")
        try editor.save()
        let row = try #require(try graph.store.read(c))
        #expect(row.values["name"] == .string("Ana B") && row.values["age"] == .integer(31))
    }

    @Test func anotherStoresSaveIsAConflictToo() throws {
        let (_, editor, c) = try seeded()
        let other = ObjectGraph(store: try SQLiteStore.open(path: file, model: Fixture.model))
        try editor.update(c, ["name": .string("mine")])
        try other.context("main").update(c, ["age": .integer(40)])
        try other.context("main").save()
        #expect(engineError { try editor.save() }?.kind == .mergeConflict)
    }

    @Test func heldLockIsStoreBusyAndTheContextStaysIntact() throws {
        let (graph, editor, c) = try seeded()
        graph.store.busyTimeout = 50
        try editor.update(c, ["name": .string("Ana B")])
        let n = try editor.insert("Contact", ["name": .string("New")])
        let raw = try plain()
        try raw.execute("BEGIN IMMEDIATE")
        let error = engineError { try editor.save() }
        #expect(error?.kind == .storeBusy)
        #expect(editor.hasChanges)
        #expect(try editor.object(c)?["name"] == .string("Ana B"))
        #expect(try editor.object(n)?["name"] == .string("New"))
        try raw.execute("COMMIT")
        try editor.save()
        #expect(try graph.store.read(c)?.values["name"] == .string("Ana B"))
        #expect(try graph.store.read(n)?.values["name"] == .string("New"))
    }

    @Test func insertsOfScriptsAndStoresNeverCollide() throws {
        let a = ObjectGraph(store: try SQLiteStore.open(path: file, model: Fixture.model))
        let b = ObjectGraph(store: try SQLiteStore.open(path: file, model: Fixture.model))
        let raw = try plain()
        // A script first, then fetchd; then fetchd reserves first and the script inserts.
        try raw.execute("INSERT INTO \"Contact\" (name, age) VALUES ('script', 1)")
        let x = try a.context("main").insert("Contact", ["name": .string("a")])
        let y = try b.context("main").insert("Contact", ["name": .string("b")])
        try raw.execute("INSERT INTO \"Contact\" (name, age) VALUES ('script 2', 2)")
        let scripted: Set<Int64> = [1, raw.lastInsertRowID]
        #expect(Set([x.number, y.number]).isDisjoint(with: scripted) && x != y)
        try a.context("main").save()
        try b.context("main").save()
        // Saves keep working afterwards (no wedged context).
        try a.context("main").insert("Contact", ["name": .string("a2")])
        try a.context("main").save()
        let count = try raw.prepareUncached("SELECT count(*) FROM \"Contact\"")
        _ = try count.step()
        #expect(count.int64(0) == 5)
    }
}
