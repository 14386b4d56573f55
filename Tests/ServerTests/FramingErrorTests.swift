import JSONRPC
import Testing

/// Stream-level problems answered through the session: id null, then business as usual.
@Suite struct FramingErrorTests {
    let ping = #"{"jsonrpc":"2.0","method":"server/ping","id":1}"#

    @Test func malformedHeaderIsAParseErrorAndTheNextMessageIsServed() {
        let h = Harness(.lsp)
        h.send(raw: Array("Content-Length: nope\r\n\r\n{\"x\":1}".utf8) + h.frame([ping]))
        let out = Harness.messages(h.output, framing: .lsp)
        #expect(out.count == 2)
        #expect(out[0]["error"]?["code"] == -32700)
        #expect(
            out[0]["error"]?["data"]?["reason"]
                == "malformed header: Content-Length is not a decimal byte count: 'nope'")
        #expect(out[0]["id"] == .null)
        #expect(out[1] == ["jsonrpc": "2.0", "result": [:], "id": 1])
    }

    @Test(arguments: [Framing.ndjson, .lsp])
    func oversizedMessageIsAnsweredAndSkipped(_ framing: Framing) {
        let h = Harness(framing, maxMessageSize: 100)
        let big =
            #"{"jsonrpc":"2.0","method":"server/echo","params":{"value":""# + String(repeating: "x", count: 200)
            + #""},"id":9}"#
        let out = h.send([big, ping])
        #expect(out.count == 2)
        #expect(out[0]["error"]?["code"] == -32600)
        #expect(out[0]["error"]?["data"]?["kind"] == "messageTooLarge")
        #expect(out[0]["error"]?["data"]?["limit"] == 100)
        #expect(out[0]["id"] == .null)
        #expect(out[1]["result"] == [:])
    }

    @Test func garbageLinesInNDJSONAreEachAParseError() {
        let h = Harness(.ndjson)
        let out = h.send(["not json", "{\"also\": not}", ping])
        #expect(out.map { $0["error"]?["code"] } == [-32700, -32700, nil])
    }
}
