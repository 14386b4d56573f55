import Model
import Predicates
import Store
import TestSupport
import Testing

@testable import Contexts

/// A batch update that gives each object its own values: on an entity with to-many
/// relationships (through the transient context) and on one that keeps everything in its
/// row (read and written at once), each as one cycle merged under unsaved edits; and every
/// problem listed with nothing written.
@Suite struct BatchUpdateObjectsTests {
    @Test func eachObjectTakesItsOwnValuesInOneCycle() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let ann = try main.insert("Contact", ["name": .string("Ann"), "age": .integer(30)])
        let bob = try main.insert("Contact", ["name": .string("Bob"), "age": .integer(40)])
        let n1 = try main.insert("Note", ["text": .string("one"), "contact": .object(ann)])
        let n2 = try main.insert("Note", ["text": .string("two"), "contact": .object(ann)])
        try main.save()
        try main.update(ann, ["name": .string("Anne")])
        _ = recorder.take()
        // Contacts have to-many relationships: the general path.
        let count = try graph.batchUpdate(
            "Contact", objects: [(bob, ["age": .integer(41)]), (ann, ["age": .integer(31), "name": .string("A")])])
        #expect(count == 2)
        #expect(try graph.store.read(ann)?.values["age"] == .integer(31))
        #expect(try graph.store.read(bob)?.values["age"] == .integer(41))
        // The unsaved name stays over the batch's (a merge's rebase), the age is taken.
        #expect(try main.object(ann)?["name"] == .string("Anne"))
        #expect(try main.object(ann)?["age"] == .integer(31))
        var sets = recorder.take()
        #expect(sets.map(\.reason) == [.batch])
        #expect(Set(sets.first?.changes.map(\.id) ?? []) == [ann, bob])
        // Notes keep everything in their row: read and written at once. Moving one note to
        // Bob changes both contacts' notes, in the same cycle.
        #expect(
            try graph.batchUpdate("Note", objects: [(n2, ["contact": .object(bob)]), (n1, ["text": .string("1")])])
                == 2)
        #expect(try main.object(n1)?["text"] == .string("1"))
        #expect(try main.object(ann)?["notes"] == .objects([n1]))
        #expect(try main.object(bob)?["notes"] == .objects([n2]))
        sets = recorder.take()
        #expect(sets.map(\.reason) == [.batch])
        #expect(Set(sets.first?.changes.map(\.id) ?? []) == [n1, n2, ann, bob])
        // Values an object holds already write nothing and deliver no change, on both paths.
        let versions = try [n1, bob].map { try graph.store.read($0)?.version }
        #expect(try graph.batchUpdate("Note", objects: [(n1, ["text": .string("1")])]) == 1)
        #expect(try graph.batchUpdate("Contact", objects: [(bob, ["age": .integer(41)])]) == 1)
        #expect(try [n1, bob].map { try graph.store.read($0)?.version } == versions)
        #expect(recorder.take().flatMap(\.changes).isEmpty)
    }

    @Test func everyProblemIsListedByRowAndNothingIsWritten() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let ann = try main.insert("Contact", ["name": .string("Ann")])
        let note = try main.insert("Note", ["text": .string("one")])
        try main.save()
        _ = recorder.take()
        for entity in ["Contact", "Note"] {
            let own = entity == "Contact" ? ann : note
            let key = entity == "Contact" ? "name" : "text"
            let error = engineError {
                try graph.batchUpdate(
                    entity,
                    objects: [
                        (own, [key: .string("changed")]),
                        (ObjectID(entity: entity, number: 99), [key: .string("x")]),
                        (own, [key: .string("again")]),
                        (entity == "Contact" ? note : ann, [:]),
                        (own, [key: .integer(5), "nope": .null]),
                    ],
                    rejected: [.init(row: 5, key: key, reason: "expected a string, got object")])
            }
            #expect(error?.kind == .validation, "\(entity)")
            let problems = batchProblems(error)
            let rows = problems.compactMap { p -> Int64? in if case .int(let row)? = p["row"] { row } else { nil } }
            // Unknown, given twice, another entity's, a wrong type and an unknown key, the caller's.
            #expect(rows == [1, 2, 3, 4, 4, 4, 5], "\(entity): \(problems)")
            #expect(try graph.store.read(own)?.values[key] == (entity == "Contact" ? .string("Ann") : .string("one")))
        }
        #expect(recorder.take().isEmpty)
    }
}
