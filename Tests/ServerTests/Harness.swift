import JSON
import JSONRPC
import Server
import Testing

/// A Server behind a Session, fed raw bytes in one framing; collects what it writes.
final class Harness {
    let server: Server
    let session: Session
    let framing: Framing
    private(set) var output: [UInt8] = []

    init(_ framing: Framing, server: Server = Server(), maxMessageSize: Int = FramingLimits.defaultMaxMessageSize) {
        self.server = server
        self.framing = framing
        session = Session(handler: server, mode: .auto, limits: FramingLimits(maxMessageSize: maxMessageSize))
    }

    /// Frames each message body in this harness's framing.
    func frame(_ bodies: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for body in bodies {
            switch framing {
            case .ndjson: bytes += Array(body.utf8) + [0x0A]
            case .lsp: bytes += Array("Content-Length: \(body.utf8.count)\r\n\r\n".utf8) + Array(body.utf8)
            }
        }
        return bytes
    }

    func send(raw bytes: [UInt8]) {
        session.receive(bytes) { output += $0.contents }
    }

    /// Sends message bodies and returns the messages written in reply (the output is decoded in
    /// this harness's framing, so a framing mistake fails the test).
    @discardableResult
    func send(_ bodies: [String]) -> [JSON] {
        let before = output.count
        send(raw: frame(bodies))
        return Self.messages(Array(output[before...]), framing: framing)
    }

    static func messages(_ bytes: [UInt8], framing: Framing) -> [JSON] {
        var decoder = FrameDecoder(mode: framing == .lsp ? .lsp : .ndjson)
        decoder.feed(bytes)
        var result: [JSON] = []
        while let event = decoder.next() {
            guard case .message(let m) = event else {
                Issue.record("server wrote a bad frame: \(event)")
                continue
            }
            if framing == .ndjson, m.contains(0x0A) { Issue.record("raw newline inside an NDJSON message") }
            do { result.append(try JSON.parse(m)) } catch { Issue.record("server wrote invalid JSON: \(error)") }
        }
        #expect(decoder.pendingByteCount == 0, "trailing partial frame")
        return result
    }
}

/// JSON-RPC output invariants every message must satisfy (O1-O5 of protocol.md §13.4).
func checkInvariants(_ message: JSON) {
    if case .array(let items) = message {
        #expect(!items.isEmpty, "empty batch response")
        items.forEach(checkInvariants)
        return
    }
    guard let o = message.objectValue else {
        Issue.record("not an object: \(message)")
        return
    }
    for problem in memberProblems(o) { Issue.record("\(problem): \(message)") }
    #expect(o["jsonrpc"] == "2.0")
    if o["method"] != nil {
        #expect(o["id"] == nil && o["result"] == nil && o["error"] == nil)
        return
    }
    #expect(o["id"] != nil, "response without id")
    #expect((o["result"] == nil) != (o["error"] == nil), "exactly one of result/error")
    if let error = o["error"]?.objectValue {
        #expect(Set(error.keys).isSubset(of: ["code", "message", "data"]))
        if case .integer = error["code"] {} else { Issue.record("code not an integer") }
        if case .string = error["message"] {} else { Issue.record("message not a string") }
    }
}

/// Members JSON-RPC 2.0 does not define, in one message fetchd writes (a response, an error
/// response or a notification): strict clients such as Emacs's jsonrpc.el reject them.
func memberProblems(_ message: JSONObject) -> [String] {
    let allowed: Set<String> =
        message["method"] != nil
        ? ["jsonrpc", "method", "params"] : ["jsonrpc", "id", "result", "error"]
    var problems = Set(message.keys).subtracting(allowed).sorted().map { "member \($0) is not JSON-RPC 2.0's" }
    if let error = message["error"]?.objectValue {
        problems += Set(error.keys).subtracting(["code", "message", "data"]).sorted().map {
            "error member \($0) is not JSON-RPC 2.0's"
        }
    }
    return problems
}

/// `expected` matches `actual` exactly, except that inside an `error` object only the members
/// `expected` names are compared (so the table need not repeat every message and reason).
func matches(_ expected: JSON, _ actual: JSON, insideError: Bool = false) -> Bool {
    switch (expected, actual) {
    case (.object(let e), .object(let a)):
        if !insideError, Set(e.keys) != Set(a.keys) { return false }
        return e.allSatisfy { key, value in
            guard let other = a[key] else { return false }
            return matches(value, other, insideError: insideError || key == "error")
        }
    case (.array(let e), .array(let a)):
        return e.count == a.count && zip(e, a).allSatisfy { matches($0, $1, insideError: insideError) }
    default:
        return expected == actual
    }
}
