import JSON
import JSONRPC
import Testing

@testable import Server

/// Every valid JSON-RPC request is answered with its id (protocol.md §1.1): a key holding
/// U+0000 is valid JSON that jansson's objects cannot hold; such a message used to be a
/// parse error with id null, which a client waiting for its id never matches.
@Suite struct ValidJSONAnsweredTests {
    static func answers(_ lines: [String]) throws -> [JSON] {
        let session = Session(handler: Server(), mode: .ndjson)
        var out: [JSON] = []
        for line in lines {
            session.receive(Array((line + "\n").utf8)) { out.append(try! JSON.parse(Array($0.contents))) }
        }
        return out
    }

    static let open =
        #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"model":{"entities":[{"name":"N","attributes":{"t":{"type":"string"}}}]}}}"#

    @Test func aValueKeyWithNULIsAnUnknownKeyAnsweredWithItsId() throws {
        let answers = try Self.answers([
            Self.open,
            #"{"jsonrpc":"2.0","id":7,"method":"context/insert","params":{"context":"main","entity":"N","values":{"x\u0000y":1}}}"#,
        ])
        #expect(answers.last?["id"] == 7)
        #expect(answers.last?["error"]?["data"]?["kind"] == "unknownKey")
        #expect(answers.last?["error"]?["data"]?["key"] == "x\u{0}y")
    }

    @Test func aModelNameWithNULIsAnInvalidModelAnsweredWithItsId() throws {
        let answers = try Self.answers([
            #"{"jsonrpc":"2.0","id":"open","method":"store/open","params":{"model":{"entities":[{"name":"N","attributes":{"\u0000":{"type":"string"}}}]}}}"#
        ])
        #expect(answers.count == 1)
        #expect(answers[0]["id"] == "open")
        #expect(answers[0]["error"]?["data"]?["kind"] == "invalidModel")
    }

    @Test func anUnknownMemberWithNULIsIgnoredAndANotificationGetsNoAnswer() throws {
        let answers = try Self.answers([
            #"{"jsonrpc":"2.0","id":3,"method":"server/echo","params":{"value":{"\u0000":true}},"x\u0000":1}"#,
            #"{"jsonrpc":"2.0","method":"initialized","params":{"\u0000":1}}"#,
        ])
        #expect(answers == [["jsonrpc": "2.0", "result": ["\u{0}": true], "id": 3]])
    }
}
