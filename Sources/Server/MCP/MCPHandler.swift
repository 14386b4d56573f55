import JSON
import JSONRPC
import Logging

/// `fetchd mcp`: fetchd as a Model Context Protocol server (protocol.md §15). A layer over the
/// JSON-RPC server, not beside it: every tool runs through the server's own method table
/// (`context/fetch`, `controller/create`, ...), so parameters are checked and refused exactly
/// as for a fetchd client, and the controllers' cycles (this process's changes, other
/// processes' commits merged by the watch) become MCP resource updates.
public final class MCPHandler: MessageHandler {
    public struct Configuration: Sendable {
        /// Refuse every tool that changes data (`insert`, `update`, `delete`, `save`).
        public var readOnly: Bool
        /// The most rows one answer carries; a `nextCursor` asks for the rest.
        public var maxRows: Int
        public init(readOnly: Bool = false, maxRows: Int = 100) {
            self.readOnly = readOnly
            self.maxRows = maxRows
        }
    }

    public let server: Server
    public let configuration: Configuration
    /// The era the connection settled on; nil until a request decides it.
    var revision: MCPRevision?
    /// The controllers opened through `open_controller`, in opening order, by name.
    var controllers: [(name: String, entity: String)] = []
    let subscriptions = MCPSubscriptions()
    /// MCP notifications of this layer's own (acknowledgements), written before the cycle's others.
    var queued: [OutgoingNotification] = []
    /// The listen requests just opened: their answer is the end of the stream, not now.
    private var streamOpened: Set<RequestID> = []

    public init(server: Server, configuration: Configuration = Configuration()) {
        self.server = server
        self.configuration = configuration
    }

    /// Opens the store as `--store/--model` do, through `store/open`.
    public func open(_ params: JSON) -> Result<JSON, RPCError> { server.call(StoreDeclarations.open.name, params) }

    // MARK: MessageHandler

    public func handle(_ request: Request) -> Result<JSON, RPCError> {
        guard let method = MCPMethods.byName[request.method] else {
            // An unknown notification is dropped, as JSON-RPC lets a server do.
            return request.isNotification ? .success(.null) : .failure(.methodNotFound(request.method))
        }
        do {
            let era = try settle(request)
            // A method of the other era only does not exist on this connection.
            guard method.eras.admits(era) else { throw RPCError.methodNotFound(request.method) }
            let result = try method.run(self, MCPCall(request: request))
            if method.opensStream, let id = request.id { streamOpened.insert(id) }
            return .success(era.isModern && !request.isNotification ? decorate(result, method) : result)
        } catch let error as RPCError {
            return .failure(error)
        } catch {
            server.logger.error("\(request.method) failed unexpectedly: \(error)")
            return .failure(.internalError("\(request.method) failed unexpectedly"))
        }
    }

    public func answersLater(_ id: RequestID) -> Bool { streamOpened.remove(id) != nil }

    public func endOfCycle() { server.endOfCycle() }

    public func takeNotifications() -> [OutgoingNotification] {
        for message in server.takeNotifications() { subscriptions.noteServer(message) }
        let own = queued
        queued = []
        return own + subscriptions.take(revision: revision)
    }

    public var exitCode: Int32? { server.exitCode }
    public func checkOutside(wakeQuiet: Bool) { server.checkOutside(wakeQuiet: wakeQuiet) }
    public func checkOutsideWhileIdle() { server.checkOutsideWhileIdle() }
    public var idleIntervalMilliseconds: Int32? { server.idleIntervalMilliseconds }
    public var wakeDescriptor: Int32? { server.wakeDescriptor }
    public func afterOutput() { server.afterOutput() }

    /// The era of this request: the first that decides one fixes the connection's, and a
    /// later one of the other era is refused as the SDK's own server refuses it.
    private func settle(_ request: Request) throws(RPCError) -> MCPRevision {
        if let version = MCPRevision.envelopeVersion(request.params), request.method != "initialize" {
            if case .handshake = revision {
                throw RPCError.invalidRequest(
                    "this connection serves the handshake era; requests carrying the 2026-07-28 envelope are refused")
            }
            try MCPRevision.checkEnvelope(request.params, version: version)
            revision = .modern
            return .modern
        }
        if request.method == "initialize" {
            if revision == .modern {
                throw MCPRevision.unsupported(requested: request.params?.json["protocolVersion"] ?? .null)
            }
            return revision ?? .handshake(MCPRevision.latestHandshake)
        }
        // Notifications carry no envelope in either era; a plain request is the handshake era's.
        if request.isNotification, let revision { return revision }
        if revision == .modern, !request.isNotification {
            throw RPCError(
                code: RPCError.invalidParamsCode,
                message: "params._meta must carry the 2026-07-28 envelope on this connection")
        }
        return revision ?? .handshake(MCPRevision.latestHandshake)
    }

    /// What the 2026-07-28 schema requires on every result: `resultType`, the server's
    /// identity, and the caching hints on the cacheable ones (0 ms: rows change at any time).
    private func decorate(_ result: JSON, _ method: MCPMethod) -> JSON {
        guard case .object(var o) = result else { return result }
        o["resultType"] = "complete"
        if method.cacheable {
            o["ttlMs"] = 0
            o["cacheScope"] = "private"
        }
        var meta = o["_meta"]?.objectValue ?? [:]
        meta[MCPRevision.serverInfoKey] = MCPRevision.serverInfo
        o["_meta"] = .object(meta)
        return .object(o)
    }

    /// A fetchd method, run as a request would be; its error is the tool's.
    func call(_ method: String, _ params: JSONObject) throws(MCPToolError) -> JSON {
        switch server.call(method, .object(params)) {
        case .success(let result): return result
        case .failure(let error): throw MCPToolError(error)
        }
    }

    func connectionSettled(as era: MCPRevision) { revision = era }
}

/// One MCP request as a method of the table sees it.
struct MCPCall: Sendable {
    let request: Request

    var params: JSONObject {
        if case .byName(let o)? = request.params { return o }
        return [:]
    }
}
