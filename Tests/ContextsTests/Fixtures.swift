import Model
import Store

@testable import Contexts

enum Fixture {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Contact",
            attributes: [
                Attribute(name: "name", type: .string),
                Attribute(name: "age", type: .integer, defaultValue: .integer(0)),
            ],
            relationships: [
                Relationship(name: "group", destination: "Group", toMany: false, inverse: "members"),
                Relationship(name: "tags", destination: "Tag", toMany: true, inverse: "contacts"),
                Relationship(
                    name: "notes", destination: "Note", toMany: true, inverse: "contact", deleteRule: .cascade),
                Relationship(name: "badge", destination: "Badge", toMany: false, inverse: "owner", deleteRule: .deny),
            ]),
        Entity(
            name: "Group", attributes: [Attribute(name: "title", type: .string)],
            relationships: [Relationship(name: "members", destination: "Contact", toMany: true, inverse: "group")]),
        Entity(
            name: "Tag", attributes: [Attribute(name: "label", type: .string)],
            relationships: [Relationship(name: "contacts", destination: "Contact", toMany: true, inverse: "tags")]),
        Entity(
            name: "Note", attributes: [Attribute(name: "text", type: .string, optional: true)],
            relationships: [Relationship(name: "contact", destination: "Contact", toMany: false, inverse: "notes")]),
        Entity(
            name: "Badge", attributes: [Attribute(name: "code", type: .string, optional: true)],
            relationships: [
                Relationship(
                    name: "owner", destination: "Contact", toMany: false, inverse: "badge", deleteRule: .noAction)
            ]),
    ])

    /// A graph on an in-memory store, recording every change set it delivers.
    static func graph(path: String = ":memory:") throws -> (ObjectGraph, Recorder) {
        let graph = ObjectGraph(store: try SQLiteStore.open(path: path, model: model))
        let recorder = Recorder()
        graph.observeChangeSets { recorder.sets.append($0) }
        return (graph, recorder)
    }
}

final class Recorder {
    var sets: [ChangeSet] = []
    func take() -> [ChangeSet] {
        defer { sets.removeAll() }
        return sets
    }
}

extension ObjectID {
    static func contact(_ n: Int64) -> ObjectID { ObjectID(entity: "Contact", number: n) }
    static func group(_ n: Int64) -> ObjectID { ObjectID(entity: "Group", number: n) }
}

/// The problems a batch's `validation` error lists (`data.errors`), each as its fields by
/// name; empty when the error has no such list.
func batchProblems(_ error: EngineError?) -> [[String: EngineError.Detail]] {
    guard case .list(let items)? = error?.detail("errors") else { return [] }
    return items.map { item in
        guard case .record(let fields) = item else { return [:] }
        return Dictionary(fields, uniquingKeysWith: { first, _ in first })
    }
}

/// The EngineError `body` throws, or nil when it succeeds.
func engineError(_ body: () throws -> Void) -> EngineError? {
    do {
        try body()
        return nil
    } catch let e as EngineError { return e } catch {
        return EngineError(EngineError.Kind("unexpected"), "\(error)")
    }
}
