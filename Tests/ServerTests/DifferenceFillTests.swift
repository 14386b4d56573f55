import JSON
import Testing

@testable import Controllers
@testable import Server

/// A batch insert into an empty entity fills a difference-mode controller straight from its
/// rows (`ControllerFill`), without one event per row in between. Its `controller/didChange`
/// must be what the events give: a twin with the same request, kept on the incremental path,
/// gets the same message but for its name. In rows mode the fill is spelled out per row: a
/// fill twin and an incremental twin send the same notifications. Sections, windows,
/// predicates and values vary with the seed.
@Suite struct DifferenceFillTests {
    static let names: [JSON] = ["Ann", "bob", "Cy", "Zoë", ""]

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func aFillSendsWhatTheEventsGive(seed: UInt64) throws {
        var rng = BatchInsertFormsTests.Rng(state: 0x9E37_79B9_7F4A_7C15 ^ (seed &* 0x1000_0001))
        let s = Server()
        _ = try s.call("store/open", ["model": StoreContextMethodsTests.model]).get()
        for title in ["A", "B", "C"] {
            _ = try s.call(
                "context/insert", ["context": "main", "entity": "Group", "values": ["title": .string(title)]]
            )
            .get()
        }
        _ = try s.call("context/save", ["context": "main"]).get()
        s.endOfCycle()

        let predicates: [JSON?] = [nil, "age > 40", "group.title != 'B'"]
        var request: JSONObject = [
            "entity": "Contact", "sortDescriptors": [["key": "age"], ["key": "name", "ascending": false]],
        ]
        request["predicate"] = predicates[rng.next(predicates.count)]
        if rng.next(3) == 0 {
            request["fetchLimit"] = 7
            request["fetchOffset"] = 3
        }
        var params: JSONObject = [
            "context": "main", "request": .object(request),
            "notify": rng.next(2) == 0 ? ["mode": "difference"] : ["mode": "difference", "objects": false],
        ]
        if rng.next(2) == 0 { params["sectionNameKeyPath"] = "group.title" }
        for name in ["fill", "events", "rowsFill", "rowsEvents"] {
            params["name"] = .string(name)
            if name == "rowsFill" { params["notify"] = nil }
            _ = try s.call("controller/create", .object(params)).get()
        }
        let twins = s.controllers.entries.map(\.controller)
        let (fill, events) = (twins[0], twins[1])
        for (i, twin) in twins.enumerated() { twin.rebuildOverride = i % 2 == 0 }
        s.endOfCycle()
        _ = s.takeNotifications()

        let rows: [JSON] = (0..<(10 + rng.next(60))).map { _ in
            [
                "name": Self.names[rng.next(Self.names.count)], "age": .integer(Int64(rng.next(80))),
                "group": rng.next(4) == 0 ? .null : .string("Group/\(1 + rng.next(3))"),
            ]
        }
        _ = try s.call("store/batchInsert", ["entity": "Contact", "objects": .array(rows)]).get()
        s.endOfCycle()
        let notes = s.takeNotifications()
        let sent = notes.filter { $0.method == "controller/didChange" }
        let byFill = try #require(sent.first { $0.params?["controller"] == "fill" }?.params?.objectValue)
        let byEvents = try #require(sent.first { $0.params?["controller"] == "events" }?.params)
        #expect(sent.count == 2)
        #expect(fill.lastCycleRebuilt && !events.lastCycleRebuilt, "each twin took its own path")
        #expect(byFill["ids"]?.arrayValue?.count == fill.count)
        var renamed = byFill
        renamed["controller"] = "events"
        #expect(JSON.object(renamed) == byEvents, "seed \(seed)")

        func stream(_ name: JSON) -> [JSON] {
            notes.filter { $0.params?["controller"] == name }.map { note in
                var p = note.params?.objectValue ?? [:]
                p["controller"] = nil
                return ["method": .string(note.method), "params": .object(p)]
            }
        }
        #expect(twins[2].lastCycleRebuilt && !twins[3].lastCycleRebuilt)
        #expect(stream("rowsFill").count >= fill.count + 2, "will, a row each, did")
        #expect(stream("rowsFill") == stream("rowsEvents"), "seed \(seed)")
    }
}
