import JSON
import JSONRPC

/// One MCP method fetchd answers: the MCP face's own table, separate from fetchd's (whose
/// methods it calls). Each method is declared here once, with the eras that have it.
struct MCPMethod: Sendable {
    enum Eras: Sendable {
        case handshake, modern, both

        func admits(_ revision: MCPRevision) -> Bool {
            switch self {
            case .both: return true
            case .handshake: return !revision.isModern
            case .modern: return revision.isModern
            }
        }
    }

    let name: String
    let eras: Eras
    /// Its 2026-07-28 result carries `ttlMs` and `cacheScope`.
    var cacheable = false
    /// Its request stays open as a stream (answered only when it ends).
    var opensStream = false
    let run: @Sendable (MCPHandler, MCPCall) throws -> JSON
}

enum MCPMethods {
    static let all: [MCPMethod] = [
        MCPMethod(name: "initialize", eras: .handshake) { mcp, call in mcp.initialize(call) },
        MCPMethod(name: "notifications/initialized", eras: .handshake) { _, _ in .null },
        MCPMethod(name: "ping", eras: .both) { _, _ in .object([:]) },
        MCPMethod(name: "server/discover", eras: .modern, cacheable: true) { mcp, _ in mcp.discover() },
        MCPMethod(name: "tools/list", eras: .both, cacheable: true) { mcp, _ in mcp.listTools() },
        MCPMethod(name: "tools/call", eras: .both) { mcp, call in try mcp.callTool(call) },
        MCPMethod(name: "resources/list", eras: .both, cacheable: true) { mcp, _ in mcp.listResources() },
        MCPMethod(name: "resources/templates/list", eras: .both, cacheable: true) { mcp, _ in mcp.listTemplates() },
        MCPMethod(name: "resources/read", eras: .both, cacheable: true) { mcp, call in try mcp.readResource(call) },
        MCPMethod(name: "resources/subscribe", eras: .handshake) { mcp, call in try mcp.subscribe(call) },
        MCPMethod(name: "resources/unsubscribe", eras: .handshake) { mcp, call in try mcp.unsubscribe(call) },
        MCPMethod(name: "subscriptions/listen", eras: .modern, opensStream: true) { mcp, call in try mcp.listen(call) },
        MCPMethod(name: "notifications/cancelled", eras: .both) { mcp, call in mcp.cancelled(call) },
    ]

    static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}

extension MCPHandler {
    static let instructions = """
        fetchd serves one Core Data-style store. Call describe_model first: it lists the entities, \
        their attributes and relationships. fetch, count and aggregate read with predicates such as \
        "age >= 18 AND name BEGINSWITH[c] 'a'"; insert, update and delete change the main context, \
        which save writes to the store. open_controller keeps a query live as the resource \
        fetchd://controller/NAME, updated whenever its rows change (this session's changes or \
        another process's commits).
        """

    var capabilities: JSON {
        ["tools": ["listChanged": false], "resources": ["subscribe": true, "listChanged": true]]
    }

    func initialize(_ call: MCPCall) -> JSON {
        let asked = call.params["protocolVersion"]?.stringValue ?? ""
        let version = MCPRevision.handshakeVersions.contains(asked) ? asked : MCPRevision.latestHandshake
        connectionSettled(as: .handshake(version))
        return [
            "protocolVersion": .string(version), "capabilities": capabilities,
            "serverInfo": MCPRevision.serverInfo, "instructions": .string(Self.instructions),
        ]
    }

    func discover() -> JSON {
        [
            "supportedVersions": [.string(MCPRevision.modernVersion)], "capabilities": capabilities,
            "instructions": .string(Self.instructions),
        ]
    }

    func cancelled(_ call: MCPCall) -> JSON {
        if let raw = call.params["requestId"], let id = RequestID(raw) { subscriptions.endStream(id) }
        return .null
    }
}
