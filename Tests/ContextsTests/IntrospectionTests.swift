import Model
import Store
import Testing

@testable import Contexts

@Suite struct IntrospectionTests {
    @Test func changesListInsertsUpdatesAndDeletesSorted() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let g = try main.insert("Group", ["title": .string("A")])
        let a = try main.insert("Contact", ["name": .string("Ana")])
        let b = try main.insert("Contact", ["name": .string("Bo")])
        #expect(main.changedObjects == ChangedObjects(inserted: [a, b, g], updated: [], deleted: []))
        try main.save()
        #expect(!main.hasChanges)
        #expect(main.changedObjects == ChangedObjects(inserted: [], updated: [], deleted: []))

        try main.update(b, ["name": .string("Bob")])
        try main.delete(a)
        let c = try main.insert("Contact", ["name": .string("Cy")])
        #expect(main.hasChanges)
        #expect(main.changedObjects == ChangedObjects(inserted: [c], updated: [b], deleted: [a]))

        // An update back to the saved value is no change.
        try main.update(b, ["name": .string("Bo")])
        #expect(main.changedObjects.updated.isEmpty)

        try main.rollback()
        #expect(!main.hasChanges)
        #expect(main.changedObjects == ChangedObjects(inserted: [], updated: [], deleted: []))
    }

    @Test func aChildsChangesAreRelativeToItsParent() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let child = try graph.createContext("editor", parent: "main")
        let a = try main.insert("Contact", ["name": .string("Ana")])
        #expect(child.changedObjects.inserted.isEmpty)

        try child.update(a, ["name": .string("Ann")])
        #expect(child.changedObjects == ChangedObjects(inserted: [], updated: [a], deleted: []))
        #expect(main.changedObjects == ChangedObjects(inserted: [a], updated: [], deleted: []))

        try child.save()
        #expect(!child.hasChanges)
        #expect(main.changedObjects == ChangedObjects(inserted: [a], updated: [], deleted: []))
        #expect(try main.object(a)?["name"] == .string("Ann"))
    }
}
