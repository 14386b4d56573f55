import JSON
import JSONRPC
import Testing

/// Every change cycle recorded in the transcripts is self-consistent (protocol.md §10.6, §11.1): its
/// notifications come in wire order, and applying them to a mirror of the controller's
/// sections (names and row counts, from `controller/create`) stays in range and gives what
/// the next `controller/sections`, `controller/performFetch` or whole-section
/// `controller/rows` answers. A recording of a
/// wrong cycle fails here even when nobody read it closely.
@Suite struct TranscriptCyclesTests {
    typealias Section = (name: String, count: Int)

    struct Cycle {
        var sectionChanges: [JSONObject] = []
        var objectChanges: [JSONObject] = []
    }

    static func path(_ json: JSON?) -> (Int, Int)? {
        guard let a = json?.arrayValue, a.count == 2, case .integer(let s) = a[0], case .integer(let r) = a[1] else {
            return nil
        }
        return (Int(s), Int(r))
    }

    static func int(_ json: JSON?) -> Int? { if case .integer(let i)? = json { Int(i) } else { nil } }

    static func sections(_ json: JSON?) -> [Section]? {
        json?.arrayValue?.compactMap { s in
            guard let name = s["name"]?.stringValue, let n = int(s["numberOfObjects"]) else { return nil }
            return (name, n)
        }
    }

    /// The problems of one cycle applied to `mirror` (which it updates).
    static func apply(_ cycle: Cycle, to mirror: inout [Section]) -> [String] {
        var problems: [String] = []
        func order(_ type: String, in changes: [JSONObject]) -> [JSONObject] {
            changes.filter { $0["type"]?.stringValue == type }
        }
        let sectionDeletes = order("delete", in: cycle.sectionChanges)
        let sectionInserts = order("insert", in: cycle.sectionChanges)
        let deletes = order("delete", in: cycle.objectChanges)
        let moves = order("move", in: cycle.objectChanges)
        let inserts = order("insert", in: cycle.objectChanges)
        let updates = order("update", in: cycle.objectChanges)

        // Wire order: section deletes, section inserts, deletes, moves, inserts, updates.
        if cycle.sectionChanges.map({ $0["type"]?.stringValue })
            != (sectionDeletes + sectionInserts).map({ $0["type"]?.stringValue })
            || cycle.objectChanges.map({ $0["type"]?.stringValue })
                != (deletes + moves + inserts + updates).map({ $0["type"]?.stringValue })
        {
            problems.append("notifications out of wire order")
        }
        func sorted(_ items: [JSONObject], _ key: String, descending: Bool) -> Bool {
            let paths = items.compactMap { path($0[key]) }
            return zip(paths, paths.dropFirst()).allSatisfy { descending ? $0 > $1 : $0 < $1 }
        }
        let sectionIndexes = { (items: [JSONObject]) in items.compactMap { int($0["sectionIndex"]) } }
        if !zip(sectionIndexes(sectionDeletes), sectionIndexes(sectionDeletes).dropFirst()).allSatisfy({ $0 > $1 })
            || !zip(sectionIndexes(sectionInserts), sectionIndexes(sectionInserts).dropFirst()).allSatisfy({ $0 < $1 })
            || !sorted(deletes, "indexPath", descending: true) || !sorted(moves, "newIndexPath", descending: false)
            || !sorted(inserts, "newIndexPath", descending: false)
            || !sorted(updates, "newIndexPath", descending: false)
        {
            problems.append("a group of notifications out of index order")
        }

        // The batch rule (protocol.md §11.1), on row counts.
        for (s, r) in (deletes + moves).compactMap({ path($0["indexPath"]) }).sorted(by: >) {
            guard s < mirror.count, r < mirror[s].count else {
                problems.append("no row [\(s),\(r)] to remove")
                continue
            }
            mirror[s].count -= 1
        }
        for change in sectionDeletes {
            guard let i = int(change["sectionIndex"]), i < mirror.count else {
                problems.append("no section to delete")
                continue
            }
            if mirror[i].count != 0 { problems.append("section \(i) deleted with rows left") }
            if mirror[i].name != change["section"]?["name"]?.stringValue {
                problems.append("section \(i) deleted under another name")
            }
            mirror.remove(at: i)
        }
        for change in sectionInserts {
            guard let i = int(change["sectionIndex"]), i <= mirror.count,
                let name = change["section"]?["name"]?.stringValue
            else {
                problems.append("no place to insert a section")
                continue
            }
            mirror.insert((name, 0), at: i)
        }
        for (s, r) in (inserts + moves).compactMap({ path($0["newIndexPath"]) }).sorted(by: <) {
            guard s < mirror.count, r <= mirror[s].count else {
                problems.append("no place for row [\(s),\(r)]")
                continue
            }
            mirror[s].count += 1
        }
        for (s, r) in updates.compactMap({ path($0["newIndexPath"]) }) where s >= mirror.count || r >= mirror[s].count {
            problems.append("no row [\(s),\(r)] to update")
        }
        for change in sectionInserts {
            if let i = int(change["sectionIndex"]), i < mirror.count,
                let n = int(change["section"]?["numberOfObjects"]), mirror[i].count != n
            {
                problems.append("section \(i) inserted with \(n) rows, has \(mirror[i].count)")
            }
        }
        return problems
    }

    /// A `controller/didChange` (protocol.md §10.8) as the per-row notifications it stands for
    /// (runs expanded, in wire order), so the same checks apply; a section delete takes the
    /// name the mirror has there.
    static func cycle(difference p: JSONObject, mirror: [Section]) -> Cycle {
        var cycle = Cycle()
        func runs(_ key: String) -> [[Int]] { (p[key]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(int) } }
        func path(_ s: Int, _ r: Int) -> JSON { .array([.integer(Int64(s)), .integer(Int64(r))]) }
        for i in (p["sections"]?["deleted"]?.arrayValue ?? []).compactMap(int) {
            let name: JSON = i < mirror.count ? .string(mirror[i].name) : .null
            cycle.sectionChanges.append([
                "type": "delete", "sectionIndex": .integer(Int64(i)), "section": ["name": name],
            ])
        }
        for inserted in p["sections"]?["inserted"]?.arrayValue ?? [] {
            cycle.sectionChanges.append(
                ["type": "insert", "sectionIndex": inserted["index"] ?? .null, "section": inserted["section"] ?? .null])
        }
        for run in runs("deleted") where run.count == 3 {
            for r in stride(from: run[1] + run[2] - 1, through: run[1], by: -1) {
                cycle.objectChanges.append(["type": "delete", "indexPath": path(run[0], r)])
            }
        }
        for move in runs("moved") where move.count == 4 {
            cycle.objectChanges.append(
                ["type": "move", "indexPath": path(move[0], move[1]), "newIndexPath": path(move[2], move[3])])
        }
        for (type, key) in [("insert", "inserted"), ("update", "updated")] {
            for run in runs(key) where run.count == 3 {
                for r in run[1]..<run[1] + run[2] {
                    cycle.objectChanges.append(["type": .string(type), "newIndexPath": path(run[0], r)])
                }
            }
        }
        return cycle
    }

    static func same(_ a: [Section], _ b: [Section]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.count == $1.count }
    }

    /// Replays the transcript's recorded output against mirrors; the problems, by line.
    static func problems(in transcript: Transcript) -> [String] { check(transcript).problems }

    static func check(_ transcript: Transcript) -> (problems: [String], applied: Int, compared: Int) {
        var problems: [String] = []
        var applied = 0
        var compared = 0
        var requests: [String: JSONObject] = [:] // id as JSON text -> request
        var mirrors: [String: [Section]] = [:]
        var cycles: [String: Cycle] = [:]
        for (line, step) in transcript.steps {
            switch step {
            case .send(let bytes):
                guard let json = try? JSON.parse(bytes) else { continue }
                for message in json.arrayValue ?? [json] {
                    if let object = message.objectValue, let id = object["id"] {
                        requests[String(decoding: id.serialized, as: UTF8.self)] = object
                    }
                }
            case .expect(let json):
                for message in json.arrayValue ?? [json] {
                    guard let object = message.objectValue else { continue }
                    if let method = object["method"]?.stringValue, let params = object["params"]?.objectValue,
                        let controller = params["controller"]?.stringValue
                    {
                        switch method {
                        case "controller/willChangeContent":
                            if cycles[controller] != nil {
                                problems.append("line \(line): willChangeContent inside a cycle")
                            }
                            cycles[controller] = Cycle()
                        case "controller/didChangeSection":
                            if cycles[controller]?.objectChanges.isEmpty == false {
                                problems.append("line \(line): a section change after object changes")
                            }
                            cycles[controller]?.sectionChanges.append(params)
                        case "controller/didChangeObject":
                            cycles[controller]?.objectChanges.append(params)
                        case "controller/didChange":
                            if cycles[controller] != nil { problems.append("line \(line): didChange inside a cycle") }
                            guard var mirror = mirrors[controller] else { continue }
                            let cycle = cycle(difference: params, mirror: mirror)
                            if cycle.sectionChanges.isEmpty && cycle.objectChanges.isEmpty {
                                problems.append("line \(line): an empty cycle")
                            }
                            problems += apply(cycle, to: &mirror).map { "line \(line): \(controller): \($0)" }
                            applied += 1
                            mirrors[controller] = mirror
                        case "controller/didChangeContent":
                            guard let cycle = cycles.removeValue(forKey: controller) else {
                                problems.append("line \(line): didChangeContent with no willChangeContent")
                                continue
                            }
                            if cycle.sectionChanges.isEmpty && cycle.objectChanges.isEmpty {
                                problems.append("line \(line): an empty cycle")
                            }
                            guard var mirror = mirrors[controller] else { continue }
                            problems += apply(cycle, to: &mirror).map { "line \(line): \(controller): \($0)" }
                            applied += 1
                            mirrors[controller] = mirror
                        default: continue
                        }
                        continue
                    }
                    guard let id = object["id"], let request = requests[String(decoding: id.serialized, as: UTF8.self)],
                        let method = request["method"]?.stringValue, let result = object["result"]
                    else { continue }
                    let params = request["params"]?.objectValue
                    switch method {
                    case "controller/create":
                        if let name = params?["name"]?.stringValue, let s = sections(result["sections"]) {
                            mirrors[name] = s
                        }
                    case "controller/sections", "controller/performFetch":
                        guard let name = params?["controller"]?.stringValue, let mirror = mirrors[name],
                            let s = sections(result["sections"])
                        else { continue }
                        compared += 1
                        if !same(mirror, s) {
                            problems.append("line \(line): \(name)'s notifications give \(mirror), it has \(s)")
                        }
                        mirrors[name] = s
                    case "controller/rows":
                        // A whole section read: as many rows as the mirror has there.
                        guard let name = params?["controller"]?.stringValue, let mirror = mirrors[name],
                            params?["offset"] == nil, params?["limit"] == nil, let section = int(params?["section"]),
                            section < mirror.count, let rows = result["objects"]?.arrayValue
                        else { continue }
                        compared += 1
                        if rows.count != mirror[section].count {
                            problems.append(
                                "line \(line): \(name)'s notifications give \(mirror[section].count) rows in section \(section), it has \(rows.count)"
                            )
                        }
                    default: continue
                    }
                }
            case .sendBytes, .exitCode: continue
            }
        }
        for (name, _) in cycles { problems.append("\(name): a cycle never closed") }
        return (problems, applied, compared)
    }

    @Test(arguments: TranscriptTests.files)
    func recordedCyclesApplyToAMirror(_ file: String) throws {
        let session = try #require(TranscriptCoverageTests.sessions.first { $0.name == file })
        let problems = Self.problems(in: session.transcript)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func theMirrorsAreReallyExercised() {
        let checks = TranscriptCoverageTests.sessions.map { Self.check($0.transcript) }
        #expect(checks.map(\.applied).reduce(0, +) >= 50)
        #expect(checks.map(\.compared).reduce(0, +) >= 10)
    }

    @Test func aWrongCycleIsFound() throws {
        let transcript = try Transcript(
            parsing: Array(
                """
                {"send":{"jsonrpc":"2.0","id":1,"method":"controller/create","params":{"name":"c"}}}
                {"expect":{"jsonrpc":"2.0","result":{"sections":[{"name":"A","indexTitle":"A","numberOfObjects":1}],"count":1},"id":1}}
                {"expect":{"jsonrpc":"2.0","method":"controller/willChangeContent","params":{"controller":"c"}}}
                {"expect":{"jsonrpc":"2.0","method":"controller/didChangeSection","params":{"controller":"c","type":"delete","sectionIndex":0,"section":{"name":"A","indexTitle":"A","numberOfObjects":1}}}}
                {"expect":{"jsonrpc":"2.0","method":"controller/didChangeObject","params":{"controller":"c","type":"insert","id":"T/2","newIndexPath":[0,0]}}}
                {"expect":{"jsonrpc":"2.0","method":"controller/didChangeContent","params":{"controller":"c"}}}
                """.utf8))
        // Section A is deleted while its row is still there, and the new row has no section.
        #expect(
            Self.problems(in: transcript) == [
                "line 6: c: section 0 deleted with rows left", "line 6: c: no place for row [0,0]",
            ])
    }
}
