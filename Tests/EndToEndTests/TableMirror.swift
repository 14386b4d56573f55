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

extension TableMirror {
    static func ints(_ json: JSON?, _ count: Int) throws -> [Int] {
        guard let a = json?.arrayValue, a.count == count else {
            throw Failure.bad("expected \(count) numbers: \(String(describing: json))")
        }
        return try a.map {
            guard case .integer(let n) = $0 else { throw Failure.bad("not an integer: \($0)") }
            return Int(n)
        }
    }

    /// Applies one `controller/didChange` (protocol.md §10.8) in the five steps of §11.1, a run
    /// at a time, checking every position as it goes.
    mutating func applyDifference(_ p: JSON) throws {
        guard let ids = p["ids"]?.arrayValue else { throw Failure.bad("no ids: \(p)") }
        let keys = p["keys"]?.arrayValue?.compactMap(\.stringValue)
        let values = p["values"]?.arrayValue
        var next = 0
        // The objects of the next n rows of the id and value columns.
        func objects(_ n: Int) throws -> [JSON] {
            guard next + n <= ids.count else { throw Failure.bad("ids run out") }
            defer { next += n }
            return try (next..<next + n).map { i in
                var o: JSONObject = ["id": ids[i]]
                if let keys {
                    guard let row = values?[i].arrayValue, row.count == keys.count else {
                        throw Failure.bad("values row \(i)")
                    }
                    for (k, v) in zip(keys, row) { o[k] = v }
                }
                return .object(o)
            }
        }
        var removals: [(s: Int, r: Int, n: Int)] = try (p["deleted"]?.arrayValue ?? []).map {
            let run = try Self.ints($0, 3)
            return (run[0], run[1], run[2])
        }
        var placements: [(s: Int, r: Int, rows: [JSON])] = []
        for run in p["inserted"]?.arrayValue ?? [] {
            let i = try Self.ints(run, 3)
            placements.append((i[0], i[1], try objects(i[2])))
        }
        for move in p["moved"]?.arrayValue ?? [] {
            let m = try Self.ints(move, 4)
            removals.append((m[0], m[1], 1))
            placements.append((m[2], m[3], try objects(1)))
        }
        var updates: [(s: Int, r: Int, rows: [JSON])] = []
        for run in p["updated"]?.arrayValue ?? [] {
            let i = try Self.ints(run, 3)
            updates.append((i[0], i[1], try objects(i[2])))
        }
        guard next == ids.count else { throw Failure.bad("\(ids.count - next) ids left over") }
        for (s, r, n) in removals.sorted(by: { ($0.s, $0.r) > ($1.s, $1.r) }) {
            guard sections.indices.contains(s), r >= 0, n > 0, r + n <= sections[s].rows.count else {
                throw Failure.bad("remove [\(s), \(r)] x\(n)")
            }
            sections[s].rows.removeSubrange(r..<r + n)
        }
        for s in try Self.ints(p["sections"]?["deleted"], p["sections"]?["deleted"]?.arrayValue?.count ?? -1) {
            guard sections.indices.contains(s), sections[s].rows.isEmpty else {
                throw Failure.bad("delete section \(s)")
            }
            sections.remove(at: s)
        }
        for inserted in p["sections"]?["inserted"]?.arrayValue ?? [] {
            guard case .integer(let s)? = inserted["index"], let name = inserted["section"]?["name"]?.stringValue,
                s <= sections.count
            else { throw Failure.bad("insert section \(inserted)") }
            sections.insert(Section(name: name, rows: []), at: Int(s))
        }
        for (s, r, rows) in placements.sorted(by: { ($0.s, $0.r) < ($1.s, $1.r) }) {
            guard sections.indices.contains(s), r >= 0, r <= sections[s].rows.count else {
                throw Failure.bad("insert [\(s), \(r)]")
            }
            sections[s].rows.insert(contentsOf: rows, at: r)
        }
        for (s, r, rows) in updates {
            guard sections.indices.contains(s), r >= 0, r + rows.count <= sections[s].rows.count,
                zip(sections[s].rows[r...], rows).allSatisfy({ $0["id"] == $1["id"] })
            else { throw Failure.bad("update [\(s), \(r)]") }
            sections[s].rows.replaceSubrange(r..<r + rows.count, with: rows)
        }
    }
}
