import Model
import Store
import TestSupport
import Testing

@testable import Contexts

/// A save writes the keys its context changed, not the whole row, when nobody changed the
/// object since it was read: the history of an update to a tagged contact's age names the
/// age alone, with no link removed and added again.
@Suite struct SaveWritesChangedKeysTests {
    func changes(_ graph: ObjectGraph, after token: Int64) throws -> [String] {
        try graph.store.history(after: token).flatMap {
            $0.changes.map { "\($0.id) " + ($0.keys ?? []).joined(separator: ",") }
        }
    }

    @Test func anUpdateRecordsOnlyTheKeysItChanged() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let t = try main.insert("Tag", ["label": .string("x")])
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30), "tags": .objects([t])])
        try main.save()
        let start = try graph.store.currentToken
        try main.update(c, ["age": .integer(31)])
        try main.save()
        #expect(try changes(graph, after: start) == ["\(c) age"])
        let row = try #require(try graph.store.read(c))
        #expect(row.values["age"] == .integer(31) && row.values["name"] == .string("Ana") && row.version == 2)
        #expect(try graph.store.relatedIDs(of: c, "tags") == [t])
    }

    @Test func aSettledConflictWritesTheWholeRow() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let c = try main.insert("Contact", ["name": .string("Ana"), "age": .integer(30)])
        try main.save()
        let editor = try graph.createContext("editor", mergesChangesFromParent: false, mergePolicy: .overwrite)
        try editor.update(c, ["name": .string("Ana B")])
        // Another root saves the age meanwhile; `overwrite` writes the editor's whole object.
        try main.update(c, ["age": .integer(40)])
        try main.save()
        let start = try graph.store.currentToken
        try editor.save()
        #expect(try changes(graph, after: start) == ["\(c) name,age"])
        let row = try #require(try graph.store.read(c))
        #expect(row.values["name"] == .string("Ana B") && row.values["age"] == .integer(30))
    }
}
