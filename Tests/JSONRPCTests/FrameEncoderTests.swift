import JSON
import JSONRPC
import Testing

@Suite struct FrameEncoderTests {
    @Test func lspOutputHasExactlyTheContentLengthHeader() {
        let frame = FrameEncoder(framing: .lsp).frame(["s": "é😀"])
        let body = #"{"s":"é😀"}"#
        #expect(Array(frame.contents) == Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
    }

    @Test func ndjsonOutputIsOneLine() {
        let frame = FrameEncoder(framing: .ndjson).frame(["a": "x\ny"])
        #expect(Array(frame.contents) == Array(#"{"a":"x\ny"}"#.utf8) + [0x0A])
    }

    @Test func largeBodiesGetTheRightLength() {
        let big = String(repeating: "z", count: 123_456)
        let frame = FrameEncoder(framing: .lsp).frame(.string(big))
        let text = String(decoding: frame.contents, as: UTF8.self)
        #expect(text.hasPrefix("Content-Length: 123458\r\n\r\n\""))
        #expect(frame.contents.count == "Content-Length: 123458\r\n\r\n".utf8.count + 123_458)
    }

    @Test func responsesKeepTheSpecificationsMemberOrder() {
        var w = JSONWriter()
        w.write(Outgoing.response(Response(id: .string("1"), outcome: .success(19))))
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","result":19,"id":"1"}"#)
        var e = JSONWriter()
        e.write(
            Outgoing.response(Response(id: .null, outcome: .failure(RPCError(code: -32700, message: "Parse error")))))
        #expect(
            String(decoding: e.bytes, as: UTF8.self)
                == #"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#)
        var n = JSONWriter()
        n.write(
            Outgoing.notification(
                OutgoingNotification(method: "controller/didChangeContent", params: ["controller": "c"])))
        #expect(
            String(decoding: n.bytes, as: UTF8.self)
                == #"{"jsonrpc":"2.0","method":"controller/didChangeContent","params":{"controller":"c"}}"#)
    }
}
