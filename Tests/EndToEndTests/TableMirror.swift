import JSON

/// A client's table mirror over the wire: sections of object rows, changed only by applying
/// each batch of controller notifications with the rule of protocol.md §11.1.
struct TableMirror: Equatable {
    struct Section: Equatable {
        var name: String
        var rows: [JSON]
    }
    var sections: [Section] = []

    enum Failure: Error { case bad(String) }

    static func path(_ json: JSON?) throws -> (Int, Int) {
        guard let a = json?.arrayValue, a.count == 2, case .integer(let s) = a[0], case .integer(let r) = a[1] else {
            throw Failure.bad("index path \(String(describing: json))")
        }
        return (Int(s), Int(r))
    }

    /// Applies one batch: the params of every notification between will and did.
    mutating func apply(_ batch: [(method: String, params: JSON)]) throws {
        var removals: [(Int, Int)] = []
        var sectionDeletes: [Int] = []
        var sectionInserts: [(Int, String)] = []
        var placements: [((Int, Int), JSON)] = []
        var updates: [((Int, Int), JSON)] = []
        for (method, p) in batch {
            if method == "controller/didChangeSection" {
                guard case .integer(let i)? = p["sectionIndex"], let name = p["section"]?["name"]?.stringValue else {
                    throw Failure.bad("section change \(p)")
                }
                if p["type"] == "delete" {
                    sectionDeletes.append(Int(i))
                } else {
                    sectionInserts.append((Int(i), name))
                }
            } else if method == "controller/didChangeObject" {
                switch p["type"]?.stringValue {
                case "delete": removals.append(try Self.path(p["indexPath"]))
                case "move":
                    removals.append(try Self.path(p["indexPath"]))
                    placements.append((try Self.path(p["newIndexPath"]), p["object"] ?? .null))
                case "insert": placements.append((try Self.path(p["newIndexPath"]), p["object"] ?? .null))
                case "update": updates.append((try Self.path(p["newIndexPath"]), p["object"] ?? .null))
                default: throw Failure.bad("object change \(p)")
                }
            }
        }
        for (s, r) in removals.sorted(by: { $0 > $1 }) {
            guard sections.indices.contains(s), sections[s].rows.indices.contains(r) else {
                throw Failure.bad("remove [\(s), \(r)]")
            }
            sections[s].rows.remove(at: r)
        }
        for s in sectionDeletes.sorted(by: >) {
            guard sections.indices.contains(s) else { throw Failure.bad("delete section \(s)") }
            sections.remove(at: s)
        }
        for (s, name) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            guard s <= sections.count else { throw Failure.bad("insert section \(s)") }
            sections.insert(Section(name: name, rows: []), at: s)
        }
        for ((s, r), object) in placements.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(s), r <= sections[s].rows.count else {
                throw Failure.bad("insert [\(s), \(r)]")
            }
            sections[s].rows.insert(object, at: r)
        }
        for ((s, r), object) in updates {
            guard sections.indices.contains(s), sections[s].rows.indices.contains(r),
                sections[s].rows[r]["id"] == object["id"]
            else { throw Failure.bad("update [\(s), \(r)]") }
            sections[s].rows[r] = object
        }
    }
}
