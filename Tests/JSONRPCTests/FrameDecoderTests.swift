import JSONRPC
import Testing

/// Feeds `chunks` and collects every event, then end of input.
func decode(_ chunks: [[UInt8]], mode: FramingMode = .auto, limit: Int = FramingLimits.defaultMaxMessageSize)
    -> (events: [FrameDecoder.Event], framing: Framing?)
{
    var decoder = FrameDecoder(mode: mode, limits: FramingLimits(maxMessageSize: limit))
    var events: [FrameDecoder.Event] = []
    for chunk in chunks {
        decoder.feed(chunk)
        while let e = decoder.next() { events.append(e) }
    }
    if let e = decoder.finish() { events.append(e) }
    return (events, decoder.framing)
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
func lsp(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }
func message(_ s: String) -> FrameDecoder.Event { .message(bytes(s)) }

@Suite struct FrameDecoderTests {
    let a = #"{"jsonrpc":"2.0","method":"a","id":1}"#
    let b = #"{"jsonrpc":"2.0","method":"ü","id":"2"}"#

    @Test func detectsTheFramingFromTheFirstNonWhitespaceByte() {
        #expect(decode([bytes("  \n" + a + "\n")]).framing == .ndjson)
        #expect(decode([bytes("[1]\n")]).framing == .ndjson)
        #expect(decode([bytes("\r\n" + lsp(a))]).framing == .lsp)
        #expect(decode([bytes("content-length: 2\r\n\r\n{}")]).framing == .lsp)
        #expect(decode([bytes("hello\n")]).events == [message("hello")])
    }

    @Test func ndjsonManyMessagesInOneReadBlankLinesAndCRLF() {
        let r = decode([bytes(a + "\n\n   \n" + b + "\r\n" + a)])
        #expect(r.events == [message(a), message(b), message(a)])
    }

    @Test(arguments: [Framing.ndjson, .lsp])
    func aMessageSplitAtEveryByteIsReassembled(_ framing: Framing) {
        let stream = framing == .lsp ? lsp(a) + lsp(b) : a + "\n" + b + "\n"
        let chunks = bytes(stream).map { [$0] }
        let r = decode(chunks, mode: .auto)
        #expect(r.framing == framing)
        #expect(r.events == [message(a), message(b)])
    }

    @Test func lspHeadersInAnyOrderAndCaseWithContentType() {
        let body = bytes(b)
        let stream =
            "Content-Type: application/vscode-jsonrpc; charset=utf8\r\nCONTENT-LENGTH:  \(body.count) \r\nX-Other: y\r\n\r\n\(b)"
            + "content-length: \(body.count)\r\ncontent-type: application/json; charset=\"UTF-8\"\r\n\r\n\(b)"
        #expect(decode([bytes(stream)], mode: .lsp).events == [message(b), message(b)])
    }

    @Test func lspLengthCountsBytesNotCharacters() {
        let body = #"{"s":"😀é"}"#
        #expect(decode([bytes(lsp(body) + lsp(body))]).events == [message(body), message(body)])
    }

    @Test(arguments: [
        "Content-Length: abc\r\n\r\n", "Content-Length:\r\n\r\n", "Content-Length: 0x1\r\n\r\n",
        "Content-Type: x\r\n\r\n", "Content-Length 12\r\n\r\n", ": 3\r\n\r\n",
        "Content-Length: 1\r\nContent-Length: 2\r\n\r\n",
    ])
    func malformedHeadersAreReportedAndTheStreamResynchronises(_ header: String) {
        // The bad header's body (if any) is skipped up to the next Content-Length.
        let r = decode([bytes(header + a + lsp(b))], mode: .lsp)
        #expect(r.events.count == 2)
        if case .error(.malformedHeader) = r.events[0] {} else { Issue.record("got \(r.events)") }
        #expect(r.events.last == message(b))
    }

    @Test func malformedHeaderResyncWorksAcrossReads() {
        let stream = bytes("garbage\r\n\r\n{junk}" + lsp(a))
        let r = decode(stream.map { [$0] }, mode: .lsp)
        #expect(r.events.count == 2)
        #expect(r.events.last == message(a))
    }

    @Test func headerWithoutBlankLineIsBoundedNotBuffered() {
        let endless = bytes(String(repeating: "X-Pad: yyyyyyyyyyyyyyyy\r\n", count: 500))
        let r = decode([endless, bytes("\r\n" + lsp(a))], mode: .lsp)
        if case .error(.malformedHeader)? = r.events.first {} else { Issue.record("got \(r.events)") }
        #expect(r.events.last == message(a))
    }

    @Test func emptyLSPBodyIsSkipped() {
        #expect(decode([bytes("Content-Length: 0\r\n\r\n" + lsp(a))]).events == [message(a)])
    }

    @Test func unsupportedCharsetIsReportedAndSkipped() {
        let stream = "Content-Length: 2\r\nContent-Type: application/json; charset=latin1\r\n\r\n{}" + lsp(a)
        #expect(decode([bytes(stream)]).events == [.error(.unsupportedCharset("latin1")), message(a)])
    }

    @Test func oversizedLSPMessageIsSkippedExactly() {
        let big = String(repeating: "x", count: 5000)
        let stream = bytes(lsp(big) + lsp(a))
        // Delivered in chunks, so the discarded bytes never need to be held at once.
        let chunks = stride(from: 0, to: stream.count, by: 700).map { Array(stream[$0..<min($0 + 700, stream.count)]) }
        let r = decode(chunks, limit: 1000)
        #expect(r.events == [.error(.tooLarge(size: 5000, limit: 1000)), message(a)])
    }

    @Test func oversizedNDJSONLineIsSkippedToTheNextNewline() {
        let big = String(repeating: "x", count: 5000)
        let stream = bytes(big + "\n" + a + "\n")
        let chunks = stride(from: 0, to: stream.count, by: 700).map { Array(stream[$0..<min($0 + 700, stream.count)]) }
        #expect(decode(chunks, limit: 1000).events == [.error(.tooLarge(size: nil, limit: 1000)), message(a)])
        // Also when the whole line arrives in one read.
        #expect(decode([stream], limit: 1000).events == [.error(.tooLarge(size: nil, limit: 1000)), message(a)])
    }

    @Test(arguments: [Framing.ndjson, .lsp])
    func aFiftyMegabyteMessageArrives(_ framing: Framing) {
        let payload = String(repeating: "a", count: 50 << 20)
        let body = #"{"jsonrpc":"2.0","method":"server/echo","params":{"value":""# + payload + #""},"id":1}"#
        let stream = bytes(framing == .lsp ? lsp(body) : body + "\n")
        var decoder = FrameDecoder(mode: .auto)
        var events: [FrameDecoder.Event] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + (1 << 20), stream.count)
            stream[offset..<end].withUnsafeBytes { decoder.feed($0) }
            while let e = decoder.next() { events.append(e) }
            offset = end
        }
        #expect(events.count == 1)
        if case .message(let m)? = events.first { #expect(m.count == body.utf8.count) }
    }

    @Test func finalNDJSONLineWithoutNewlineCountsAtEndOfInput() {
        #expect(decode([bytes(a)]).events == [message(a)])
        // A partial LSP body at end of input is not a message.
        #expect(decode([bytes("Content-Length: 100\r\n\r\n{}")]).events == [])
    }
}
