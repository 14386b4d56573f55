import Model
import Testing

@testable import Controllers

/// The seeds' table views, notification by notification.
@Suite struct SeedScenarioTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Message",
            attributes: [Attribute(name: "text", type: .string), Attribute(name: "sentAt", type: .date)]),
        Entity(
            name: "Contact",
            attributes: [Attribute(name: "name", type: .string), Attribute(name: "initial", type: .string)]),
        Entity(
            name: "Note",
            attributes: [Attribute(name: "title", type: .string), Attribute(name: "updatedAt", type: .date)]),
        Entity(
            name: "Conversation",
            attributes: [
                Attribute(name: "title", type: .string),
                Attribute(name: "lastMessageTime", type: .date),
            ]),
    ])

    typealias E = ControllerEvent
    static func path(_ s: Int, _ r: Int) -> IndexPath { IndexPath(section: s, row: r) }

    func controller(_ store: TestStore, _ entity: String, section: [String]? = nil, sort: [([String], Bool)]) throws
        -> FetchedResultsController
    {
        let c = FetchedResultsController(
            name: entity, source: store, filter: TestFilter(entity: entity),
            ordering: TestOrdering(entity: entity, section: section, sort: sort),
            sectionNameKeyPath: section?.joined(separator: "."), model: Self.model)
        try c.performFetch()
        return c
    }

    @Test func appendedMessageIsOneInsertAtTheEnd() throws {
        let store = TestStore(model: Self.model)
        for i in 0..<3 { store.insert("Message", ["text": .string("m\(i)"), "sentAt": .date(Double(i))]) }
        _ = store.endCycle()
        let c = try controller(store, "Message", sort: [(["sentAt"], true)])
        #expect(c.sections == [SectionInfo(name: "", numberOfObjects: 3)])
        let id = store.insert("Message", ["text": .string("new"), "sentAt": .date(10)])
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent, .object(.insert, id, indexPath: nil, newIndexPath: Self.path(0, 3)),
                .didChangeContent,
            ])
        #expect(c.count == 4)
    }

    /// Contacts sectioned by initial, sorted by name.
    func contacts() throws -> (TestStore, FetchedResultsController, [String: ObjectID]) {
        let store = TestStore(model: Self.model)
        var ids: [String: ObjectID] = [:]
        for name in ["Alice", "Amy", "Bob", "Dan"] {
            ids[name] = store.insert("Contact", ["name": .string(name), "initial": .string(String(name.prefix(1)))])
        }
        _ = store.endCycle()
        return (store, try controller(store, "Contact", section: ["initial"], sort: [(["name"], true)]), ids)
    }

    @Test func contactInANewSectionInsertsTheSection() throws {
        let (store, c, _) = try contacts()
        #expect(c.sections.map(\.name) == ["A", "B", "D"])
        let carl = store.insert("Contact", ["name": .string("Carl"), "initial": .string("C")])
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .section(.insert, index: 2, SectionInfo(name: "C", numberOfObjects: 1)),
                .object(.insert, carl, indexPath: nil, newIndexPath: Self.path(2, 0)),
                .didChangeContent,
            ])
        #expect(c.sectionIndexTitles == ["A", "B", "C", "D"])
        #expect(c.indexPath(of: carl) == Self.path(2, 0))
    }

    @Test func deletingTheLastContactOfASectionDeletesTheSection() throws {
        let (store, c, ids) = try contacts()
        store.delete(ids["Bob"]!)
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .section(.delete, index: 1, SectionInfo(name: "B", numberOfObjects: 1)),
                .object(.delete, ids["Bob"]!, indexPath: Self.path(1, 0), newIndexPath: nil),
                .didChangeContent,
            ])
        #expect(c.sections.map(\.name) == ["A", "D"])
    }

    @Test func renameMovesAContactAcrossSections() throws {
        let (store, c, ids) = try contacts()
        // Amy becomes Dora: leaves A (which keeps Alice) for D, before Dan.
        store.set(ids["Amy"]!, "name", .string("Dora"))
        store.set(ids["Amy"]!, "initial", .string("D"))
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.move, ids["Amy"]!, indexPath: Self.path(0, 1), newIndexPath: Self.path(2, 1)),
                .didChangeContent,
            ])
        // Bob becomes Ed: section B goes, section E comes.
        store.set(ids["Bob"]!, "name", .string("Ed"))
        store.set(ids["Bob"]!, "initial", .string("E"))
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .section(.delete, index: 1, SectionInfo(name: "B", numberOfObjects: 1)),
                .section(.insert, index: 2, SectionInfo(name: "E", numberOfObjects: 1)),
                .object(.move, ids["Bob"]!, indexPath: Self.path(1, 0), newIndexPath: Self.path(2, 0)),
                .didChangeContent,
            ])
        #expect(
            c.sections == [
                SectionInfo(name: "A", numberOfObjects: 1), SectionInfo(name: "D", numberOfObjects: 2),
                SectionInfo(name: "E", numberOfObjects: 1),
            ])
    }

    /// protocol.md §11.3's worked example, exactly.
    @Test func protocolWorkedExample() throws {
        let (store, c, ids) = try contacts()
        store.set(ids["Amy"]!, "name", .string("Dora"))
        store.set(ids["Amy"]!, "initial", .string("D"))
        store.set(ids["Bob"]!, "name", .string("Ed"))
        store.set(ids["Bob"]!, "initial", .string("E"))
        let carl = store.insert("Contact", ["name": .string("Carl"), "initial": .string("C")])
        #expect(carl.number == 5)
        let events = c.apply(store.endCycle())
        #expect(
            events == [
                .willChangeContent,
                .section(.delete, index: 1, SectionInfo(name: "B", numberOfObjects: 1)),
                .section(.insert, index: 1, SectionInfo(name: "C", numberOfObjects: 1)),
                .section(.insert, index: 3, SectionInfo(name: "E", numberOfObjects: 1)),
                .object(.move, ids["Amy"]!, indexPath: Self.path(0, 1), newIndexPath: Self.path(2, 1)),
                .object(.move, ids["Bob"]!, indexPath: Self.path(1, 0), newIndexPath: Self.path(3, 0)),
                .object(.insert, carl, indexPath: nil, newIndexPath: Self.path(1, 0)),
                .didChangeContent,
            ])
        #expect(c.sections.map(\.name) == ["A", "C", "D", "E"])
    }

    /// A controller created after changes but before their cycle ends already shows them;
    /// the cycle then reports no second insert and the tree holds each row once.
    @Test func controllerCreatedMidCycleDoesNotDoubleRows() throws {
        let store = TestStore(model: Self.model)
        let a = store.insert("Message", ["text": .string("a"), "sentAt": .date(1)])
        let b = store.insert("Message", ["text": .string("b"), "sentAt": .date(2)])
        _ = store.endCycle()
        store.set(a, "sentAt", .date(3))
        let c = store.insert("Message", ["text": .string("c"), "sentAt": .date(0)])
        store.delete(b)
        let controller = try controller(store, "Message", sort: [(["sentAt"], true)])
        #expect(try controller.ids(section: 0) == [c, a])
        let events = controller.apply(store.endCycle())
        #expect(
            !events.contains {
                if case .object(.insert, _, _, _) = $0 { return true }
                return false
            })
        #expect(
            !events.contains {
                if case .object(.delete, _, _, _) = $0 { return true }
                return false
            })
        #expect(try controller.ids(section: 0) == [c, a] && controller.count == 2)
    }

    @Test func renameWithinASectionThatKeepsItsPlaceIsAnUpdate() throws {
        let (store, c, ids) = try contacts()
        store.set(ids["Amy"]!, "name", .string("Anna")) // still after Alice
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.update, ids["Amy"]!, indexPath: Self.path(0, 1), newIndexPath: Self.path(0, 1)),
                .didChangeContent,
            ])
        store.set(ids["Amy"]!, "name", .string("Anna")) // the same value again: no change
        #expect(c.apply(store.endCycle()) == [])
    }

    /// Notes by updatedAt, newest first.
    @Test func editedNoteMovesToTheTopAndTheLastNoteCanBeDeleted() throws {
        let store = TestStore(model: Self.model)
        let notes = (0..<3).map { store.insert("Note", ["title": .string("n\($0)"), "updatedAt": .date(Double($0))]) }
        _ = store.endCycle()
        let c = try controller(store, "Note", sort: [(["updatedAt"], false)])
        #expect(try c.ids(section: 0) == [notes[2], notes[1], notes[0]])
        store.set(notes[0], "updatedAt", .date(100))
        store.set(notes[0], "title", .string("edited"))
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.move, notes[0], indexPath: Self.path(0, 2), newIndexPath: Self.path(0, 0)),
                .didChangeContent,
            ])
        // Editing the top note again keeps it on top: an update, though its key changed.
        store.set(notes[0], "updatedAt", .date(200))
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.update, notes[0], indexPath: Self.path(0, 0), newIndexPath: Self.path(0, 0)),
                .didChangeContent,
            ])
        store.delete(notes[1])
        store.delete(notes[2])
        _ = c.apply(store.endCycle())
        store.delete(notes[0])
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.delete, notes[0], indexPath: Self.path(0, 0), newIndexPath: nil),
                .didChangeContent,
            ])
        // Without a section key path the one section stays, empty.
        #expect(c.sections == [SectionInfo(name: "", numberOfObjects: 0)])
    }

    /// Conversations by lastMessageTime, newest first; a new message bumps one.
    @Test func conversationsReorderByLastMessageTime() throws {
        let store = TestStore(model: Self.model)
        let convs = (0..<4).map {
            store.insert("Conversation", ["title": .string("c\($0)"), "lastMessageTime": .date(Double($0))])
        }
        _ = store.endCycle()
        let c = try controller(store, "Conversation", sort: [(["lastMessageTime"], false)])
        // Two conversations get messages in one batch: c1 then c0 on top.
        store.set(convs[1], "lastMessageTime", .date(50))
        store.set(convs[0], "lastMessageTime", .date(40))
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.move, convs[1], indexPath: Self.path(0, 2), newIndexPath: Self.path(0, 0)),
                .object(.move, convs[0], indexPath: Self.path(0, 3), newIndexPath: Self.path(0, 1)),
                .didChangeContent,
            ])
        // Swap the two on top: the one later in new order moves, the other is an update.
        store.set(convs[1], "lastMessageTime", .date(30))
        store.set(convs[0], "lastMessageTime", .date(45))
        #expect(
            c.apply(store.endCycle()) == [
                .willChangeContent,
                .object(.move, convs[1], indexPath: Self.path(0, 0), newIndexPath: Self.path(0, 1)),
                .object(.update, convs[0], indexPath: Self.path(0, 1), newIndexPath: Self.path(0, 0)),
                .didChangeContent,
            ])
        // A change to a conversation of another entity's controller sends nothing here.
        store.insert("Note", ["title": .string("x"), "updatedAt": .date(1)])
        #expect(c.apply(store.endCycle()) == [])
    }
}
