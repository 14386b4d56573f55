import Contexts
import JSON
import JSONRPC
import Model
import Testing

@testable import Server

@Suite struct StoreContextMethodsTests {
    static let model: JSON = try! JSON.parse(Array(WireModelTests.contacts.utf8))

    /// A server with the contacts model open in memory.
    private func server() throws -> Server {
        let server = Server()
        let opened = try server.call("store/open", ["model": Self.model]).get()
        #expect(opened == ["entities": ["Contact", "Group"], "migrated": false])
        return server
    }

    private func call(_ server: Server, _ method: String, _ params: JSON) throws -> JSON {
        let result = server.call(method, params)
        server.endOfCycle()
        return try result.get()
    }

    private func errorData(_ result: Result<JSON, RPCError>) -> (Int, JSONObject)? {
        guard case .failure(let e) = result else { return nil }
        return (e.code, e.data?.objectValue ?? [:])
    }

    @Test func insertUpdateGetFetchCountSave() throws {
        let s = try server()
        let g = try call(s, "context/insert", ["context": "main", "entity": "Group", "values": ["title": "Friends"]])
        #expect(g == ["object": ["id": "Group/1", "title": "Friends", "members": []]])
        let c = try call(
            s, "context/insert",
            [
                "context": "main", "entity": "Contact",
                "values": ["name": "Ana", "group": "Group/1", "born": "1990-05-01"],
            ])
        #expect(
            c == [
                "object": [
                    "id": "Contact/1", "name": "Ana", "phone": nil, "age": 0,
                    "born": "1990-05-01T00:00:00.000Z", "group": "Group/1",
                ]
            ])
        _ = try call(
            s, "context/insert", ["context": "main", "entity": "Contact", "values": ["name": "Bo", "age": 30]])
        let u = try call(s, "context/update", ["context": "main", "id": "Contact/1", "values": ["age": 41]])
        #expect(u["object"]?["age"] == 41)
        let got = try call(
            s, "context/get", ["context": "main", "ids": ["Group/1", "Contact/2"], "keys": ["members", "name"]])
        #expect(got == ["objects": [["id": "Group/1", "members": ["Contact/1"]], ["id": "Contact/2", "name": "Bo"]]])
        let fetched = try call(
            s, "context/fetch",
            [
                "context": "main", "keys": ["name"],
                "request": [
                    "entity": "Contact", "predicate": "age > $min", "variables": ["min": 20],
                    "sortDescriptors": [["key": "age", "ascending": false]],
                ],
            ])
        #expect(fetched == ["objects": [["id": "Contact/1", "name": "Ana"], ["id": "Contact/2", "name": "Bo"]]])
        let counted = try call(
            s, "context/count",
            ["context": "main", "request": ["entity": "Contact", "predicate": "name BEGINSWITH 'A'"]])
        #expect(counted == ["count": 1])
        let saved = try call(s, "context/save", ["context": "main"])
        #expect(saved == ["inserted": 3, "updated": 0, "deleted": 0])
        _ = try call(s, "context/delete", ["context": "main", "id": "Contact/2"])
        #expect(try call(s, "context/save", ["context": "main"]) == ["inserted": 0, "updated": 0, "deleted": 1])
    }

    @Test func childContextsAndRollback() throws {
        let s = try server()
        #expect(
            try call(s, "context/create", ["name": "editor", "parent": "main", "mergePolicy": "objectTrump"]) == [
                "context": "editor"
            ])
        _ = try call(s, "context/insert", ["context": "editor", "entity": "Group", "values": ["title": "T"]])
        #expect(try call(s, "context/count", ["context": "main", "request": ["entity": "Group"]]) == ["count": 0])
        #expect(try call(s, "context/save", ["context": "editor"]) == ["inserted": 1, "updated": 0, "deleted": 0])
        #expect(try call(s, "context/count", ["context": "main", "request": ["entity": "Group"]]) == ["count": 1])
        _ = try call(s, "context/rollback", ["context": "main"])
        #expect(try call(s, "context/count", ["context": "main", "request": ["entity": "Group"]]) == ["count": 0])
        _ = try call(s, "context/close", ["context": "editor"])
        #expect(
            errorData(s.call("context/count", ["context": "editor", "request": ["entity": "Group"]]))?.1["kind"]
                == "unknownContext")
    }

    @Test func errorsNameTheProblemAndChangeNothing() throws {
        let fresh = Server()
        #expect(
            errorData(fresh.call("context/insert", ["context": "main", "entity": "Group", "values": [:]]))?.1["kind"]
                == "noStore")
        let bad = errorData(
            fresh.call("store/open", ["model": ["entities": [["name": "A", "attributes": ["x": ["type": "text"]]]]]]))
        #expect(bad?.0 == -32011)
        #expect(
            bad?.1 == [
                "kind": "invalidModel", "path": "entities[0].attributes.x.type",
                "reason": "unknown type text (expected one of string, integer, double, boolean, date, binary, uuid)",
            ])

        let s = try server()
        let mismatch = errorData(
            s.call("context/insert", ["context": "main", "entity": "Contact", "values": ["name": "A", "age": "old"]]))
        #expect(mismatch?.0 == -32602)
        #expect(mismatch?.1["kind"] == "typeMismatch")
        #expect(mismatch?.1["key"] == "age")
        #expect(
            errorData(s.call("context/insert", ["context": "main", "entity": "Contact", "values": ["nick": "A"]]))?.1[
                "kind"] == "unknownKey")
        #expect(
            errorData(s.call("context/insert", ["context": "main", "entity": "Person", "values": [:]]))?.1["kind"]
                == "unknownEntity")
        let missing = errorData(
            s.call(
                "context/insert",
                ["context": "main", "entity": "Contact", "values": ["name": "A", "group": "Group/7"]]))
        #expect(missing?.1["kind"] == "unknownObject")
        #expect(missing?.1["id"] == "Group/7")
        #expect(errorData(s.call("context/update", ["context": "main", "id": "Contact", "values": [:]]))?.0 == -32602)
        #expect(errorData(s.call("context/create", ["name": "x", "mergePolicy": "whatever"]))?.0 == -32602)
        #expect(errorData(s.call("context/create", ["name": "main"]))?.1["kind"] == "duplicateName")
        s.endOfCycle()
        #expect(try call(s, "context/count", ["context": "main", "request": ["entity": "Contact"]]) == ["count": 0])
        let invalid = errorData(s.call("context/save", ["context": "main"]))
        #expect(invalid == nil)
        _ = try call(s, "context/insert", ["context": "main", "entity": "Contact", "values": ["age": 3]])
        let validation = errorData(s.call("context/save", ["context": "main"]))
        #expect(validation?.0 == -32030)
        #expect(
            validation?.1 == [
                "kind": "validation",
                "errors": [["id": "Contact/1", "key": "name", "reason": "required value missing"]],
            ])
    }

    @Test func aBatchIsOneChangeCycle() throws {
        let s = try server()
        let recorder = ChangeSetRecorder()
        try s.contexts.requireGraph().addObserver(recorder)
        let h = Harness(.ndjson, server: s)
        let replies = h.send([
            #"[{"jsonrpc":"2.0","id":1,"method":"context/insert","params":{"context":"main","entity":"Group","values":{"title":"A"}}},"#
                + #"{"jsonrpc":"2.0","id":2,"method":"context/update","params":{"context":"main","id":"Group/1","values":{"title":"B"}}}]"#
        ])
        #expect(replies.count == 1)
        #expect(recorder.seen.count == 1)
        #expect(recorder.seen.first?.changes.count == 1)
        #expect(recorder.seen.first?.changes.first?.after?["title"] == .string("B"))
        #expect(recorder.seen.first?.reason == .request)
        h.send([#"{"jsonrpc":"2.0","id":3,"method":"context/get","params":{"context":"main","ids":["Group/1"]}}"#])
        #expect(recorder.seen.count == 1)
    }

    /// Each cycle says why it happened: the end of a request, a save (here a child's into its
    /// parent), a merge of another root's save, a rollback.
    @Test func changeSetsCarryTheirReason() throws {
        let s = try server()
        let recorder = ChangeSetRecorder()
        try s.contexts.requireGraph().addObserver(recorder)
        _ = try call(s, "context/create", ["name": "other"])
        _ = try call(s, "context/create", ["name": "child", "parent": "main"])
        func reasons(_ method: String, _ params: JSON) throws -> [String] {
            recorder.seen.removeAll()
            _ = try call(s, method, params)
            s.endOfCycle()
            return recorder.seen.map { "\($0.context):\($0.reason.rawValue)" }
        }
        #expect(
            try reasons("context/insert", ["context": "child", "entity": "Group", "values": ["title": "A"]])
                == ["child:request"])
        let childSave = try reasons("context/save", ["context": "child"])
        #expect(childSave == ["main:save"])
        #expect(try reasons("context/save", ["context": "main"]) == ["other:merge"])
        #expect(
            try reasons("context/update", ["context": "other", "id": "Group/1", "values": ["title": "B"]])
                == ["other:request"])
        #expect(try reasons("context/rollback", ["context": "other"]) == ["other:rollback"])
    }
}

/// Every change set the contexts deliver, with the reason of its cycle.
final class ChangeSetRecorder: GraphObserver {
    var seen: [ChangeSet] = []
    func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) { seen.append(changeSet) }
}
