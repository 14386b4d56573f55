import JSON
import JSONRPC
import Testing

@testable import Server

/// `controller/didChange` writes its own bytes (ids from the controller's encoded prefix,
/// values straight from the snapshots): they must be those of its JSON value, for values of
/// every kind, deleted objects, references and strings that need escaping, with values and
/// without.
@Suite struct DifferenceEncodingTests {
    static let model: JSON = [
        "entities": [
            [
                "name": "Group", "attributes": ["title": ["type": "string"]],
                "relationships": ["items": ["destination": "Item", "toMany": true, "inverse": "group"]],
            ],
            [
                "name": "Item",
                "attributes": [
                    "s": ["type": "string", "optional": true], "n": ["type": "integer", "optional": true],
                    "x": ["type": "double", "optional": true], "b": ["type": "boolean", "optional": true],
                    "born": ["type": "date", "optional": true, "default": "2000-01-01"],
                ],
                "relationships": ["group": ["destination": "Group", "inverse": "items", "optional": true]],
            ],
        ]
    ]
    static let strings: [JSON] = [
        "", "a \"quoted\" name", "back\\slash", "tab\there\nnewline", "Zoë ☃ 𝄞", "\u{01}\u{1F}", .null,
    ]
    static let numbers: [JSON] = [0, -9_223_372_036_854_775_808, 9_223_372_036_854_775_807, .null]
    static let doubles: [JSON] = [0.1, -0.0, 1e300, 3, .null]

    private func call(_ s: Server, _ method: String, _ params: JSON) throws -> JSON {
        let result = s.call(method, params)
        s.endOfCycle()
        return try result.get()
    }

    /// A store with two groups; `items` items are inserted by the callers.
    private func opened() throws -> Server {
        let s = Server()
        _ = try call(s, "store/open", ["model": Self.model])
        for title in ["A", "B"] {
            _ = try call(
                s, "context/insert", ["context": "main", "entity": "Group", "values": ["title": .string(title)]])
        }
        return s
    }

    private func item(_ k: Int) -> JSON {
        [
            "s": Self.strings[k % Self.strings.count], "n": Self.numbers[k % Self.numbers.count],
            "x": Self.doubles[k % Self.doubles.count], "b": k % 3 == 0 ? .null : .bool(k % 2 == 0),
            "group": k % 4 == 0 ? .null : .string("Group/\(1 + k % 2)"),
        ]
    }

    @Test func writesTheBytesOfItsValue() throws {
        let s = try opened()
        let notify: [JSON] = [
            ["mode": "difference"], ["mode": "difference", "objects": false],
            ["mode": "difference", "keys": ["s", "n", "x", "b", "born", "group"]],
            ["mode": "difference", "keys": ["x"]],
        ]
        for (i, n) in notify.enumerated() {
            _ = try call(
                s, "controller/create",
                [
                    "context": "main", "name": .string("c\(i)"), "notify": n,
                    "request": ["entity": "Item", "sortDescriptors": [["key": "n"], ["key": "s"]]],
                ])
        }
        _ = s.takeNotifications()
        var ids: [JSON] = []
        for k in 0..<24 {
            let inserted = try call(s, "context/insert", ["context": "main", "entity": "Item", "values": item(k)])
            ids.append(inserted["object"]?["id"] ?? .null)
        }
        for (k, id) in ids.enumerated() where k % 3 == 1 {
            _ = try call(s, "context/update", ["context": "main", "id": id, "values": ["n": .integer(Int64(100 - k))]])
        }
        for (k, id) in ids.enumerated() where k % 5 == 2 {
            _ = try call(s, "context/delete", ["context": "main", "id": id])
        }
        _ = try call(s, "context/save", ["context": "main"])

        let differences = s.takeNotifications().filter { $0.method == "controller/didChange" }
        #expect(differences.count >= 4 * (24 + 8 + 5))
        #expect(differences.contains { $0.params?["values"]?.arrayValue?.isEmpty == false })
        func bytes(_ n: OutgoingNotification) -> [UInt8] {
            var w = JSONWriter()
            w.write(Outgoing.notification(n))
            return w.bytes
        }
        for n in differences {
            let plain = OutgoingNotification(method: n.method, params: n.params)
            #expect(bytes(n) == bytes(plain), "\(String(decoding: bytes(plain), as: UTF8.self))")
        }
    }

    /// The values columns are written once, when the cycle is sent, from the cycle's
    /// snapshots: each row is the object's values as a fetch reads them, key for key. From
    /// `DifferenceValues.idOrderFrom` rows out of id order they are read in id order.
    @Test(arguments: [100, DifferenceValues.idOrderFrom + 500])
    func carriesTheValuesAFetchReads(count: Int) throws {
        let s = try opened()
        let keys: [JSON] = ["s", "n", "x", "b", "born", "group"]
        let request: JSON = ["entity": "Item", "sortDescriptors": [["key": "x"], ["key": "s"]]]
        _ = try call(
            s, "controller/create",
            [
                "context": "main", "name": "c", "notify": ["mode": "difference", "keys": .array(keys)],
                "request": request,
            ])
        _ = s.takeNotifications()
        // One cycle of many inserts (the change set's values) and one of updates.
        var batch: [JSON] = []
        for k in 0..<count { batch.append(item(k)) }
        for values in batch { _ = s.call("context/insert", ["context": "main", "entity": "Item", "values": values]) }
        s.endOfCycle()
        _ = try call(s, "context/save", ["context": "main"])
        let fetched =
            try call(s, "context/fetch", ["context": "main", "request": request])["objects"]?.arrayValue ?? []
        let byID = Dictionary(uniqueKeysWithValues: fetched.map { ($0["id"]?.stringValue ?? "", $0) })
        #expect(byID.count == count)
        var rows = 0
        for n in s.takeNotifications() where n.method == "controller/didChange" {
            let ids = n.params?["ids"]?.arrayValue ?? []
            let values = n.params?["values"]?.arrayValue ?? []
            #expect(values.count == ids.count)
            for (id, row) in zip(ids, values) {
                let object = try #require(byID[id.stringValue ?? ""])
                #expect(row == .array(keys.map { object[$0.stringValue!] ?? .null }), "\(id)")
                rows += 1
            }
        }
        #expect(rows == count)
    }
}
