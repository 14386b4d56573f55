import JSON
import JSONRPC
import Model
import Testing

@testable import Server

@Suite struct ControllerMethodsTests {
    static let model: JSON = try! JSON.parse(Array(WireModelTests.contacts.utf8))

    /// A server with the contacts model open and three contacts in groups A and B.
    private func server() throws -> Server {
        let s = Server()
        _ = try s.call("store/open", ["model": Self.model]).get()
        _ = try call(s, "context/insert", ["context": "main", "entity": "Group", "values": ["title": "A"]])
        _ = try call(s, "context/insert", ["context": "main", "entity": "Group", "values": ["title": "B"]])
        for (name, age, group) in [("Ann", 30, "Group/1"), ("Bob", 20, "Group/2"), ("Cy", 40, "Group/1")] {
            _ = try call(
                s, "context/insert",
                [
                    "context": "main", "entity": "Contact",
                    "values": ["name": .string(name), "age": .integer(Int64(age)), "group": .string(group)],
                ])
        }
        _ = s.takeNotifications()
        return s
    }

    /// Calls a method and ends the cycle, as the session does after each request.
    private func call(_ s: Server, _ method: String, _ params: JSON) throws -> JSON {
        let result = s.call(method, params)
        s.endOfCycle()
        return try result.get()
    }

    private func notifications(_ s: Server) -> [JSON] {
        s.takeNotifications().map { ["method": .string($0.method), "params": $0.params ?? .null] }
    }

    private func failure(_ s: Server, _ method: String, _ params: JSON) -> (Int, JSONObject)? {
        guard case .failure(let e) = s.call(method, params) else { return nil }
        return (e.code, e.data?.objectValue ?? [:])
    }

    @Test func createReadAndNotify() throws {
        let s = try server()
        let created = try call(
            s, "controller/create",
            [
                "context": "main", "name": "byGroup", "sectionNameKeyPath": "group.title", "notify": ["keys": ["name"]],
                "request": ["entity": "Contact", "sortDescriptors": [["key": "age", "ascending": false]]],
            ])
        #expect(
            created == [
                "sections": [
                    ["name": "A", "indexTitle": "A", "numberOfObjects": 2],
                    ["name": "B", "indexTitle": "B", "numberOfObjects": 1],
                ], "count": 3,
            ])
        #expect(notifications(s).isEmpty)
        #expect(
            try call(s, "controller/rows", ["controller": "byGroup", "section": 0, "keys": ["age"]])
                == ["objects": [["id": "Contact/3", "age": 40], ["id": "Contact/1", "age": 30]]])
        #expect(
            try call(
                s, "controller/rows",
                ["controller": "byGroup", "section": 0, "offset": 1, "limit": 5, "keys": ["name"]])
                == ["objects": [["id": "Contact/1", "name": "Ann"]]])
        #expect(
            try call(s, "controller/object", ["controller": "byGroup", "indexPath": [1, 0]])["object"]?["name"] == "Bob"
        )
        #expect(
            try call(s, "controller/indexPath", ["controller": "byGroup", "id": "Contact/1"]) == ["indexPath": [0, 1]])
        #expect(try call(s, "controller/indexPath", ["controller": "byGroup", "id": "Group/1"]) == ["indexPath": nil])
        #expect(try call(s, "controller/sectionIndexTitles", ["controller": "byGroup"]) == ["titles": ["A", "B"]])
        #expect(
            try call(s, "controller/sectionForIndexTitle", ["controller": "byGroup", "title": "B", "index": 1]) == [
                "section": 1
            ])

        // Bob joins group A at age 50: a move into A's top; section B goes.
        _ = try call(
            s, "context/update", ["context": "main", "id": "Contact/2", "values": ["group": "Group/1", "age": 50]])
        #expect(
            notifications(s) == [
                ["method": "controller/willChangeContent", "params": ["controller": "byGroup"]],
                [
                    "method": "controller/didChangeSection",
                    "params": [
                        "controller": "byGroup", "type": "delete", "sectionIndex": 1,
                        "section": ["name": "B", "indexTitle": "B", "numberOfObjects": 1],
                    ],
                ],
                [
                    "method": "controller/didChangeObject",
                    "params": [
                        "controller": "byGroup", "type": "move", "id": "Contact/2",
                        "indexPath": [1, 0], "newIndexPath": [0, 0],
                        "object": ["id": "Contact/2", "name": "Bob"],
                    ],
                ],
                ["method": "controller/didChangeContent", "params": ["controller": "byGroup"]],
            ])
        // Renaming group A reaches the controller through group.title.
        _ = try call(s, "context/update", ["context": "main", "id": "Group/1", "values": ["title": "Z"]])
        let renamed = notifications(s)
        #expect(renamed.first == ["method": "controller/willChangeContent", "params": ["controller": "byGroup"]])
        #expect(renamed.contains { $0["params"]?["type"] == "insert" && $0["params"]?["section"]?["name"] == "Z" })
        #expect(
            try call(s, "controller/sections", ["controller": "byGroup"])
                == ["sections": [["name": "Z", "indexTitle": "Z", "numberOfObjects": 3]]])
        // Another value of a shown object changes: an update in place.
        _ = try call(s, "context/update", ["context": "main", "id": "Contact/1", "values": ["phone": "123"]])
        let types: [JSON] = notifications(s).map { $0["params"]?["type"] ?? .null }
        #expect(types == [.null, "update", .null])
        // A change nobody reads sends nothing.
        _ = try call(s, "context/insert", ["context": "main", "entity": "Group", "values": ["title": "Empty"]])
        #expect(notifications(s).isEmpty)
        #expect(try call(s, "controller/close", ["controller": "byGroup"]) == [:])
        #expect(failure(s, "controller/sections", ["controller": "byGroup"])?.0 == -32024)
    }

    @Test func idsOnlyNotificationsAndLimits() throws {
        let s = try server()
        _ = try call(
            s, "controller/create",
            [
                "context": "main", "name": "young", "notify": ["objects": false],
                "request": [
                    "entity": "Contact", "predicate": "age < 35", "sortDescriptors": [["key": "age"]], "fetchLimit": 1,
                ],
            ])
        #expect(
            try call(s, "controller/rows", ["controller": "young", "section": 0, "keys": ["name"]])
                == ["objects": [["id": "Contact/2", "name": "Bob"]]])
        // A younger contact pushes Bob out of the one-row window.
        _ = try call(
            s, "context/insert", ["context": "main", "entity": "Contact", "values": ["name": "Dee", "age": 5]])
        #expect(
            notifications(s) == [
                ["method": "controller/willChangeContent", "params": ["controller": "young"]],
                [
                    "method": "controller/didChangeObject",
                    "params": ["controller": "young", "type": "delete", "id": "Contact/2", "indexPath": [0, 0]],
                ],
                [
                    "method": "controller/didChangeObject",
                    "params": ["controller": "young", "type": "insert", "id": "Contact/4", "newIndexPath": [0, 0]],
                ],
                ["method": "controller/didChangeContent", "params": ["controller": "young"]],
            ])
    }

    @Test func errorsNameTheProblem() throws {
        let s = try server()
        let request: JSON = ["entity": "Contact", "sortDescriptors": [["key": "name"]]]
        _ = try call(s, "controller/create", ["context": "main", "name": "c", "request": request])
        #expect(
            failure(s, "controller/create", ["context": "main", "name": "c", "request": request])?.1["kind"]
                == "duplicateName")
        #expect(
            failure(s, "controller/create", ["context": "nope", "name": "d", "request": request])?.1["kind"]
                == "unknownContext")
        #expect(
            failure(s, "controller/create", ["context": "main", "name": "d", "request": ["entity": "Nope"]])?.1["kind"]
                == "unknownEntity")
        #expect(
            failure(
                s, "controller/create",
                ["context": "main", "name": "d", "request": request, "sectionNameKeyPath": "nope"])?.1["kind"]
                == "unknownKey")
        #expect(
            failure(
                s, "controller/create",
                ["context": "main", "name": "d", "request": request, "notify": ["keys": ["nope"]]])?.1["kind"]
                == "unknownKey")
        #expect(
            failure(
                s, "controller/create",
                ["context": "main", "name": "d", "request": ["entity": "Contact", "predicate": "age >"]])?.1["kind"]
                == "predicateSyntax")
        let badSection = failure(s, "controller/rows", ["controller": "c", "section": 3])
        #expect(badSection?.0 == -32602 && badSection?.1["kind"] == "invalidValue" && badSection?.1["key"] == "section")
        #expect(failure(s, "controller/object", ["controller": "c", "indexPath": [0, 9]])?.1["key"] == "indexPath")
        #expect(failure(s, "controller/object", ["controller": "c", "indexPath": [0]])?.0 == -32602)
        #expect(
            failure(s, "controller/sectionForIndexTitle", ["controller": "c", "title": "#", "index": 4])?.1["key"]
                == "title")
        #expect(failure(s, "controller/sections", ["controller": "zz"])?.1["kind"] == "unknownController")
        // Closing the context closes its controllers.
        _ = try call(s, "context/create", ["name": "side", "parent": "main"])
        _ = try call(s, "controller/create", ["context": "side", "name": "s", "request": request])
        _ = try call(s, "context/close", ["context": "side"])
        #expect(failure(s, "controller/sections", ["controller": "s"])?.1["kind"] == "unknownController")
        // A new store drops every controller.
        _ = try s.call("store/open", ["model": Self.model]).get()
        #expect(failure(s, "controller/sections", ["controller": "c"])?.1["kind"] == "unknownController")
    }

    /// A controller created in the same batch as a change already shows it; the batch's
    /// cycle does not add the row a second time.
    @Test func controllerCreatedInTheBatchOfAChange() throws {
        let h = Harness(.ndjson, server: try server())
        let out = h.send([
            #"[{"jsonrpc":"2.0","method":"context/insert","params":{"context":"main","entity":"Contact","values":{"name":"Al"}},"id":1},{"jsonrpc":"2.0","method":"controller/create","params":{"context":"main","name":"all","request":{"entity":"Contact","sortDescriptors":[{"key":"name"}]}},"id":2}]"#
        ])
        #expect(out.allSatisfy { $0["method"] == nil || $0["params"]?["type"] != "insert" })
        let rows = h.send([
            #"{"jsonrpc":"2.0","method":"controller/rows","params":{"controller":"all","section":0,"keys":["name"]},"id":3}"#
        ])
        #expect(
            rows.last?["result"]?["objects"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                "Al", "Ann", "Bob", "Cy",
            ])
    }

    /// Over the session: a batch is one cycle; its notifications come before its responses.
    @Test func notificationsPrecedeTheResponseOfTheRequestThatCausedThem() throws {
        let h = Harness(.ndjson, server: try server())
        _ = h.send([
            #"{"jsonrpc":"2.0","method":"controller/create","params":{"context":"main","name":"all","notify":{"objects":false},"request":{"entity":"Contact","sortDescriptors":[{"key":"name"}]}},"id":1}"#
        ])
        let out = h.send([
            #"[{"jsonrpc":"2.0","method":"context/insert","params":{"context":"main","entity":"Contact","values":{"name":"Al"}},"id":2},{"jsonrpc":"2.0","method":"context/insert","params":{"context":"main","entity":"Contact","values":{"name":"Zed"}},"id":3}]"#
        ])
        #expect(out.count == 5)
        #expect(
            out.prefix(4).map { $0["method"] ?? .null } == [
                "controller/willChangeContent", "controller/didChangeObject",
                "controller/didChangeObject", "controller/didChangeContent",
            ])
        #expect(out[1]["params"]?["newIndexPath"] == [0, 0] && out[2]["params"]?["newIndexPath"] == [0, 4])
        if case .array(let responses) = out[4] {
            #expect(responses.count == 2)
        } else {
            Issue.record("no batch response")
        }
    }
}
