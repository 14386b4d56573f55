import JSON
import JSONRPC
import Testing

@testable import Server

/// `fetchd mcp` in-process (protocol.md §15): what the transcripts cannot show by themselves.
@Suite struct MCPTests {
    static let model: JSON = [
        "entities": [["name": "Contact", "attributes": ["name": ["type": "string"], "age": ["type": "integer"]]]]
    ]
    static let envelope: JSON = [
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": [:],
    ]

    static func session() throws -> (Session, MCPHandler) {
        let handler = MCPHandler(server: Server(logger: TranscriptReplay.quietLogger))
        if case .failure(let error) = handler.open(StoreLocation.openParams(store: ":memory:", model: model)) {
            throw error
        }
        return (Session(handler: handler, mode: .ndjson, logger: TranscriptReplay.quietLogger), handler)
    }

    /// What the session writes for one message, each frame parsed.
    static func send(_ session: Session, _ message: JSON) throws -> [JSON] {
        var out: [JSON] = []
        session.receive(message.serialized + [0x0A]) { frame in
            out.append(try! JSON.parse(Array(frame.contents.dropLast())))
        }
        return out
    }

    static func request(_ id: JSON, _ method: String, _ params: JSONObject = [:]) -> JSON {
        var p = params
        p["_meta"] = envelope
        return ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": .object(p)]
    }

    static func tool(_ id: Int64, _ name: String, _ arguments: JSON) -> JSON {
        request(.integer(id), "tools/call", ["name": .string(name), "arguments": arguments])
    }

    @Test func everyMethodAndToolIsInAnMCPTranscript() throws {
        let sessions = TranscriptCoverageTests.sessions.filter { $0.transcript.mcp != nil }
        #expect(sessions.count >= 3)
        let sent = sessions.flatMap(\.sent)
        let methods = Set(sent.compactMap { $0["method"]?.stringValue })
        for method in MCPMethods.all { #expect(methods.contains(method.name), "no transcript sends \(method.name)") }
        let tools = Set(sent.compactMap { $0["params"]?["name"]?.stringValue })
        for tool in MCPTools.all { #expect(tools.contains(tool.name), "no transcript calls \(tool.name)") }
    }

    @Test func toolSchemasAreClosedObjectsWithTheirRequiredArguments() {
        for tool in MCPTools.all {
            #expect(tool.input.json["type"] == "object", "\(tool.name)")
            #expect(tool.input.json["additionalProperties"] == false, "\(tool.name)")
            let properties = tool.input.json["properties"]?.objectValue?.keys ?? []
            for required in tool.input.json["required"]?.arrayValue ?? [] {
                #expect(properties.contains(required.stringValue ?? ""), "\(tool.name): \(required)")
            }
        }
    }

    /// A listen request gets no response: its stream ends when the client cancels it, and a
    /// cancelled stream hears of nothing more.
    @Test func aListenStreamIsNeverAnsweredAndEndsWhenCancelled() throws {
        let (session, _) = try Self.session()
        _ = try Self.send(session, Self.request(1, "server/discover"))
        _ = try Self.send(session, Self.tool(2, "open_controller", ["name": "all", "entity": "Contact"]))
        let opened = try Self.send(
            session,
            Self.request(
                "s", "subscriptions/listen",
                ["notifications": ["resourceSubscriptions": ["fetchd://controller/all", "fetchd://controller/later"]]]))
        #expect(opened.count == 1)
        #expect(opened.first?["method"] == "notifications/subscriptions/acknowledged")
        #expect(opened.first?["id"] == nil)

        let insert = try Self.send(
            session, Self.tool(3, "insert", ["entity": "Contact", "values": ["name": "A", "age": 1]]))
        #expect(insert.map { $0["method"] ?? $0["id"] ?? .null } == ["notifications/resources/updated", 3])
        #expect(insert.first?["params"]?["_meta"]?["io.modelcontextprotocol/subscriptionId"] == "s")

        _ = try Self.send(
            session, ["jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": "s"]])
        let after = try Self.send(
            session, Self.tool(4, "insert", ["entity": "Contact", "values": ["name": "B", "age": 2]]))
        #expect(after.map { $0["id"] ?? .null } == [4])
    }

    /// The era is the first deciding request's: a handshake session never sees the envelope's
    /// result members, and a 2026-07-28 one refuses `initialize`.
    @Test func theEraIsSettledOnce() throws {
        let (legacy, handler) = try Self.session()
        let initialized = try Self.send(
            legacy,
            ["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["protocolVersion": "2025-06-18"]])
        #expect(initialized.first?["result"]?["protocolVersion"] == "2025-06-18")
        #expect(handler.revision == .handshake("2025-06-18"))
        let listed = try Self.send(legacy, ["jsonrpc": "2.0", "id": 2, "method": "tools/list"])
        #expect(listed.first?["result"]?["resultType"] == nil)

        let (modern, _) = try Self.session()
        let discovered = try Self.send(modern, Self.request(1, "server/discover"))
        #expect(discovered.first?["result"]?["resultType"] == "complete")
        let refused = try Self.send(modern, ["jsonrpc": "2.0", "id": 2, "method": "initialize", "params": [:]])
        #expect(refused.first?["error"]?["code"] == .integer(Int64(MCPRevision.unsupportedVersionCode)))
    }

    /// A refused call writes nothing: under --read-only, and when its arguments are refused.
    @Test func aRefusedToolChangesNothing() throws {
        let handler = MCPHandler(
            server: Server(logger: TranscriptReplay.quietLogger), configuration: .init(readOnly: true))
        _ = handler.open(StoreLocation.openParams(store: ":memory:", model: Self.model))
        let session = Session(handler: handler, mode: .ndjson, logger: TranscriptReplay.quietLogger)
        let refused = try Self.send(session, Self.tool(1, "insert", ["entity": "Contact", "values": ["name": "A"]]))
        #expect(refused.first?["result"]?["isError"] == true)
        let count = try Self.send(session, Self.tool(2, "count", ["entity": "Contact"]))
        #expect(count.first?["result"]?["structuredContent"] == ["count": 0])
    }

    @Test func cursorsReadOnlyWhatTheyWrite() {
        #expect(MCPCursor("200")?.offset == 200)
        #expect(MCPCursor("200+5")?.remaining == 5)
        for bad in ["", "x", "-1", "1+0", "1+", "1+2+3"] { #expect(MCPCursor(bad) == nil, "\(bad)") }
        #expect(MCPCursor(offset: 4, remaining: 2).text == "4+2")
    }
}
