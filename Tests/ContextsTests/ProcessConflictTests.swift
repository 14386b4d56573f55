import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// A store shared with other writers: a plain SQL client (a script) and further stores, as
/// other fetchd processes would open it. The cases below run on each kind of store.
protocol SharedStoreFixture {
    func open() throws -> any Store
    /// One statement of the plain client, committed at once.
    func plain(_ sql: String) throws
    /// The plain client takes the writers' lock and keeps it until `release` runs.
    func holdLock() throws -> () throws -> Void
    /// A plain client's insert of a contact, leaving the number to the store; returns it.
    func plainInsertContact(_ name: String) throws -> Int64
    func plainCount(_ table: String) throws -> Int64
}

/// Saves when other writers share the store.
enum ProcessConflictCases {
    /// A graph on the store with one saved contact.
    static func seeded(_ f: any SharedStoreFixture, policy: MergePolicy = .error) throws -> (
        ObjectGraph, Context, ObjectID
    ) {
        let graph = ObjectGraph(store: try f.open())
        let main = try graph.context("main")
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30)])
        try main.save()
        let editor = try graph.createContext("editor", mergesChangesFromParent: false, mergePolicy: policy)
        return (graph, editor, c)
    }

    static func scriptCommitSinceTheReadIsAMergeConflict(_ f: any SharedStoreFixture) throws {
        let (graph, editor, c) = try seeded(f)
        try editor.update(c, ["name": .string("Ana B")])
        try f.plain("UPDATE \"Contact\" SET age = 31 WHERE _pk = \(c.number)")
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

    static func objectTrumpKeepsTheScriptsKeyAndOurs(_ f: any SharedStoreFixture) throws {
        let (graph, editor, c) = try seeded(f, policy: .objectTrump)
        try editor.update(c, ["name": .string("Ana B")])
        try f.plain("UPDATE \"Contact\" SET age = 31 WHERE _pk = \(c.number)")
        try editor.save()
        let row = try #require(try graph.store.read(c))
        #expect(row.values["name"] == .string("Ana B") && row.values["age"] == .integer(31))
    }

    static func anotherStoresSaveIsAConflictToo(_ f: any SharedStoreFixture) throws {
        let (_, editor, c) = try seeded(f)
        let other = ObjectGraph(store: try f.open())
        try editor.update(c, ["name": .string("mine")])
        try other.context("main").update(c, ["age": .integer(40)])
        try other.context("main").save()
        #expect(engineError { try editor.save() }?.kind == .mergeConflict)
    }

    static func heldLockIsStoreBusyAndTheContextStaysIntact(_ f: any SharedStoreFixture) throws {
        let (graph, editor, c) = try seeded(f)
        graph.store.busyTimeout = 50
        try editor.update(c, ["name": .string("Ana B")])
        let n = try editor.insert("Contact", ["name": .string("New")])
        let release = try f.holdLock()
        let error = engineError { try editor.save() }
        #expect(error?.kind == .storeBusy)
        #expect(editor.hasChanges)
        #expect(try editor.object(c)?["name"] == .string("Ana B"))
        #expect(try editor.object(n)?["name"] == .string("New"))
        try release()
        try editor.save()
        #expect(try graph.store.read(c)?.values["name"] == .string("Ana B"))
        #expect(try graph.store.read(n)?.values["name"] == .string("New"))
    }

    static func insertsOfScriptsAndStoresNeverCollide(_ f: any SharedStoreFixture) throws {
        let a = ObjectGraph(store: try f.open())
        let b = ObjectGraph(store: try f.open())
        // A script first, then fetchd; then fetchd reserves first and the script inserts.
        let first = try f.plainInsertContact("script")
        let x = try a.context("main").insert("Contact", ["name": .string("a")])
        let y = try b.context("main").insert("Contact", ["name": .string("b")])
        let second = try f.plainInsertContact("script 2")
        #expect(Set([x.number, y.number]).isDisjoint(with: [first, second]) && x != y)
        try a.context("main").save()
        try b.context("main").save()
        // Saves keep working afterwards (no wedged context).
        try a.context("main").insert("Contact", ["name": .string("a2")])
        try a.context("main").save()
        #expect(try f.plainCount("Contact") == 5)
    }
}

/// The cases on a SQLite file shared with a plain SQLite connection.
struct SQLiteSharedFile: SharedStoreFixture {
    let dir = TempDir()
    var file: String { dir.file("shared.sqlite") }

    func connection() throws -> Connection {
        let db = try Connection(path: file)
        try db.execute("PRAGMA busy_timeout=2000; PRAGMA foreign_keys=ON")
        return db
    }

    func open() throws -> any Store { try SQLiteStore.open(path: file, model: Fixture.model) }
    func plain(_ sql: String) throws { try connection().execute(sql) }

    func holdLock() throws -> () throws -> Void {
        let raw = try connection()
        try raw.execute("BEGIN IMMEDIATE")
        return { try raw.execute("COMMIT") }
    }

    func plainInsertContact(_ name: String) throws -> Int64 {
        let raw = try connection()
        try raw.execute("INSERT INTO \"Contact\" (name, age) VALUES ('\(name)', 1)")
        return raw.lastInsertRowID
    }

    func plainCount(_ table: String) throws -> Int64 {
        let count = try connection().prepareUncached("SELECT count(*) FROM \"\(table)\"")
        _ = try count.step()
        return count.int64(0)
    }
}

@Suite struct ProcessConflictTests {
    @Test func scriptCommitSinceTheReadIsAMergeConflict() throws {
        try ProcessConflictCases.scriptCommitSinceTheReadIsAMergeConflict(SQLiteSharedFile())
    }

    @Test func objectTrumpKeepsTheScriptsKeyAndOurs() throws {
        try ProcessConflictCases.objectTrumpKeepsTheScriptsKeyAndOurs(SQLiteSharedFile())
    }

    @Test func anotherStoresSaveIsAConflictToo() throws {
        try ProcessConflictCases.anotherStoresSaveIsAConflictToo(SQLiteSharedFile())
    }

    @Test func heldLockIsStoreBusyAndTheContextStaysIntact() throws {
        try ProcessConflictCases.heldLockIsStoreBusyAndTheContextStaysIntact(SQLiteSharedFile())
    }

    @Test func insertsOfScriptsAndStoresNeverCollide() throws {
        try ProcessConflictCases.insertsOfScriptsAndStoresNeverCollide(SQLiteSharedFile())
    }
}
