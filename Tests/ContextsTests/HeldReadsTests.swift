import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// One mutation reads each saved row it needs once (HeldReads.swift); reads outside a
/// mutation still see other processes' commits.
@Suite struct HeldReadsTests {
    let dir = TempDir()
    var file: String { dir.file("held.sqlite") }

    /// The graph on a file, one saved contact (and a saved note on it), and a counter of the
    /// statements that read one Contact row by its number.
    func setUp() throws -> (ObjectGraph, ObjectID, ObjectID, () -> Int) {
        let store = try SQLiteStore.open(path: file, model: Fixture.model)
        let graph = ObjectGraph(store: store)
        let main = try graph.context("main")
        let contact = try main.insert("Contact", ["name": .string("Ada"), "age": .integer(36)])
        let note = try main.insert("Note", ["text": .string("n"), "contact": .object(contact)])
        try main.save()
        var reads = 0
        try store.connection.observeStatements { sql in
            if sql.contains("FROM \"Contact\" WHERE \"_pk\" =") { reads += 1 }
        }
        return (graph, contact, note, { reads })
    }

    @Test func anUpdateReadsItsRowOnce() throws {
        let (graph, contact, _, reads) = try setUp()
        try graph.context("main").update(contact, ["age": .integer(37)])
        #expect(reads() == 1)
        #expect(try graph.context("main").object(contact)?["age"] == .integer(37))
    }

    @Test func aChildsUpdateReadsTheRowOnceThroughItsParent() throws {
        let (graph, contact, _, reads) = try setUp()
        let child = try graph.createContext("child", parent: "main")
        try child.update(contact, ["name": .string("Ada L.")])
        #expect(reads() == 1)
        #expect(try child.object(contact)?["name"] == .string("Ada L."))
    }

    @Test func aDeleteReadsItsRowOnce() throws {
        let (graph, contact, note, reads) = try setUp()
        try graph.context("main").delete(contact) // cascades to the note
        #expect(reads() == 1)
        #expect(try graph.context("main").object(note) == nil)
        try graph.context("main").save()
        #expect(try graph.store.read(contact) == nil)
    }

    @Test func readsAfterAMutationSeeAnotherConnectionsCommit() throws {
        let (graph, contact, _, reads) = try setUp()
        let main = try graph.context("main")
        try main.update(contact, ["age": .integer(40)])
        try main.save()
        #expect(try main.object(contact)?["name"] == .string("Ada"))
        let other = try Connection(path: file)
        try other.execute("PRAGMA busy_timeout=2000")
        try other.execute("UPDATE \"Contact\" SET name = 'Grace' WHERE \"_pk\" = \(contact.number)")
        #expect(try main.object(contact)?["name"] == .string("Grace"))
        #expect(reads() >= 3)
    }
}
