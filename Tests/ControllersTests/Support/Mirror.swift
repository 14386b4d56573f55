import Model

@testable import Controllers

/// A client's table mirror: sections of rows, each row an id with the values the last
/// notification carried. `apply` is the batch rule of protocol.md §11.1, and nothing else.
struct Mirror: Equatable {
    struct Row: Equatable {
        var id: ObjectID
        var values: Snapshot
    }
    struct Section: Equatable {
        var name: String
        var rows: [Row]
    }
    var sections: [Section] = []

    enum Failure: Error, CustomStringConvertible {
        case badPath(String)
        var description: String {
            switch self {
            case .badPath(let s): return s
            }
        }
    }

    /// Applies one cycle's events; `values` gives an object's values as the server would
    /// send them on insert, move and update.
    mutating func apply(_ events: [ControllerEvent], values: (ObjectID) -> Snapshot?) throws {
        var removals: [IndexPath] = []
        var sectionDeletes: [Int] = []
        var sectionInserts: [(Int, String)] = []
        var placements: [(IndexPath, ObjectID)] = []
        var updates: [(IndexPath, ObjectID)] = []
        for event in events {
            switch event {
            case .willChangeContent, .didChangeContent: break
            case .section(.delete, let index, _): sectionDeletes.append(index)
            case .section(.insert, let index, let info): sectionInserts.append((index, info.name))
            case .object(.delete, _, let old?, _): removals.append(old)
            case .object(.move, let id, let old?, let new?):
                removals.append(old)
                placements.append((new, id))
            case .object(.insert, let id, _, let new?): placements.append((new, id))
            case .object(.update, let id, _, let new?): updates.append((new, id))
            default: throw Failure.badPath("malformed event \(event)")
            }
        }
        for path in removals.sorted(by: >) {
            guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row) else {
                throw Failure.badPath("remove at \(path)")
            }
            sections[path.section].rows.remove(at: path.row)
        }
        for index in sectionDeletes.sorted(by: >) {
            guard sections.indices.contains(index) else { throw Failure.badPath("delete section \(index)") }
            sections.remove(at: index)
        }
        for (index, name) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            guard index <= sections.count else { throw Failure.badPath("insert section \(index)") }
            sections.insert(Section(name: name, rows: []), at: index)
        }
        for (path, id) in placements.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(path.section), path.row <= sections[path.section].rows.count else {
                throw Failure.badPath("insert at \(path)")
            }
            sections[path.section].rows.insert(Row(id: id, values: values(id) ?? [:]), at: path.row)
        }
        for (path, id) in updates {
            // An update reloads a row in place: the row there must be that object.
            guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row),
                sections[path.section].rows[path.row].id == id
            else {
                throw Failure.badPath("update of \(id) at \(path)")
            }
            sections[path.section].rows[path.row] = Row(id: id, values: values(id) ?? [:])
        }
    }

    var ids: [ObjectID] { sections.flatMap { $0.rows.map(\.id) } }
}
