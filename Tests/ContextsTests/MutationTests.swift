import Model
import Testing

@testable import Contexts

@Suite struct MutationTests {
    @Test func insertGivesPermanentIdsAndDefaults() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let a = try main.insert("Contact", ["name": .string("Ana")])
        let b = try main.insert("Contact", ["name": .string("Bo"), "age": .integer(7)])
        #expect(a == .contact(1))
        #expect(b == .contact(2))
        #expect(
            try main.object(a) == [
                "name": .string("Ana"), "age": .integer(0), "group": .null,
                "tags": .objects([]), "notes": .objects([]), "badge": .null,
            ])
        // The id stays the same through the save.
        try main.save()
        #expect(try graph.store.read(a)?.values["name"] == .string("Ana"))
    }

    @Test func cycleReportsInsertsUpdatesAndDeletesOnce() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let a = try main.insert("Contact", ["name": .string("Ana")])
        graph.processPendingChanges()
        let first = rec.take()
        #expect(first.count == 1)
        #expect(first[0].context == "main")
        #expect(first[0].changes.map(\.id) == [a])
        #expect(first[0].changes[0].isInsert)
        #expect(first[0].changes[0].changedKeys.contains("name"))

        try main.update(a, ["name": .string("Ana"), "age": .integer(3)])
        graph.processPendingChanges()
        let second = rec.take()
        #expect(second.count == 1)
        #expect(second[0].changes[0].changedKeys == ["age"])
        #expect(second[0].changes[0].before?["age"] == .integer(0))
        #expect(second[0].changes[0].after?["age"] == .integer(3))

        // Setting a value to what it already was is no change; no cycle at all.
        try main.update(a, ["age": .integer(3)])
        graph.processPendingChanges()
        #expect(rec.take().isEmpty)

        // Changed and changed back within one cycle: nothing.
        try main.update(a, ["age": .integer(4)])
        try main.update(a, ["age": .integer(3)])
        graph.processPendingChanges()
        #expect(rec.take().isEmpty)

        try main.delete(a)
        graph.processPendingChanges()
        let third = rec.take()
        #expect(third.count == 1 && third[0].changes[0].isDelete)
        #expect(try main.object(a) == nil)
    }

    @Test func toOneMaintainsItsToManyInverse() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let g1 = try main.insert("Group", ["title": .string("A")])
        let g2 = try main.insert("Group", ["title": .string("B")])
        let c = try main.insert("Contact", ["name": .string("Ana"), "group": .object(g1)])
        #expect(try main.object(g1)?["members"] == .objects([c]))
        try main.save()
        rec.sets.removeAll()
        try main.update(c, ["group": .object(g2)])
        #expect(try main.object(g1)?["members"] == .objects([]))
        #expect(try main.object(g2)?["members"] == .objects([c]))
        graph.processPendingChanges()
        let ids = rec.take().flatMap { $0.changes.map(\.id) }
        #expect(ids == [c, g1, g2])
        // The to-many side moves the to-one side.
        try main.update(g1, ["members": .objects([c])])
        #expect(try main.object(c)?["group"] == .object(g1))
        #expect(try main.object(g2)?["members"] == .objects([]))
        try main.save()
        #expect(try graph.store.read(g1)?.values["members"] == .objects([c]))
    }

    @Test func manyToManyKeepsBothSides() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let t1 = try main.insert("Tag", ["label": .string("x")])
        let t2 = try main.insert("Tag", ["label": .string("y")])
        let c = try main.insert("Contact", ["name": .string("Ana"), "tags": .objects([t2, t1])])
        #expect(try main.object(c)?["tags"] == .objects([t1, t2]))
        #expect(try main.object(t2)?["contacts"] == .objects([c]))
        try main.save()
        try main.update(t1, ["contacts": .objects([])])
        #expect(try main.object(c)?["tags"] == .objects([t2]))
        try main.save()
        #expect(try graph.store.read(c)?.values["tags"] == .objects([t2]))
        #expect(try graph.store.read(t1)?.values["contacts"] == .objects([]))
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        let (graph, rec) = try Fixture.graph()
        let main = try graph.context("main")
        let g = try main.insert("Group", ["title": .string("A")])
        let c = try main.insert("Contact", ["name": .string("Ana")])
        graph.processPendingChanges()
        rec.sets.removeAll()

        #expect(engineError { _ = try main.insert("Person", [:]) }?.kind == .unknownEntity)
        let mismatch = engineError { try main.update(c, ["name": .string("Bo"), "age": .string("old")]) }
        #expect(mismatch?.kind == .typeMismatch)
        #expect(mismatch?.detail("key") == .string("age"))
        #expect(engineError { try main.update(c, ["nickname": .string("x")]) }?.kind == .unknownKey)
        #expect(engineError { try main.update(c, ["group": .object(.contact(1))]) }?.kind == .typeMismatch)
        let missing = engineError { try main.update(c, ["name": .string("Bo"), "group": .object(.group(99))]) }
        #expect(missing?.kind == .unknownObject)
        #expect(missing?.detail("id") == .string("Group/99"))
        #expect(engineError { try main.update(.contact(42), ["name": .string("x")]) }?.kind == .unknownObject)
        #expect(engineError { try main.delete(ObjectID(entity: "Nope", number: 1)) }?.kind == .unknownEntity)

        #expect(try main.object(c)?["name"] == .string("Ana"))
        #expect(try main.object(g)?["members"] == .objects([]))
        graph.processPendingChanges()
        #expect(rec.take().isEmpty)
    }

    @Test func deleteRules() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context("main")
        let g = try main.insert("Group", ["title": .string("A")])
        let c = try main.insert("Contact", ["name": .string("Ana"), "group": .object(g)])
        let n1 = try main.insert("Note", ["text": .string("a"), "contact": .object(c)])
        let n2 = try main.insert("Note", ["text": .string("b"), "contact": .object(c)])
        let badge = try main.insert("Badge", ["owner": .object(c)])
        try main.save()

        // deny: Contact.badge is deny, so the contact cannot go while it has a badge.
        do {
            try main.delete(c)
            Issue.record("deny rule ignored")
        } catch {
            #expect(error.kind == .deleteDenied)
            #expect(error.detail("id") == .string(c.description))
            #expect(error.detail("relationship") == .string("badge"))
        }
        #expect(try main.object(c) != nil)
        #expect(try main.object(n1) != nil)

        // noAction: deleting the badge leaves the contact pointing at it; the save refuses.
        try main.delete(badge)
        #expect(try main.object(c)?["badge"] == .object(badge))
        do {
            try main.save()
            Issue.record("dangling reference saved")
        } catch {
            #expect(error.kind == .validation)
            guard case .list(let errors)? = error.detail("errors") else {
                Issue.record("no errors")
                return
            }
            #expect(
                errors == [
                    .record([
                        ("id", .string(c.description)), ("key", .string("badge")),
                        ("reason", .string("refers to \(badge), which does not exist")),
                    ])
                ])
        }
        try main.update(c, ["badge": .null])
        try main.save()

        // cascade (notes) and nullify (group).
        try main.delete(c)
        #expect(try main.object(n1) == nil)
        #expect(try main.object(n2) == nil)
        #expect(try main.object(g)?["members"] == .objects([]))
        try main.save()
        #expect(try graph.store.read(n1) == nil)
        #expect(try graph.store.read(g)?.values["members"] == .objects([]))
    }
}
