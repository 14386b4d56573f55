import JSON
import JSONRPC

struct Initialize: RPCMethod {
    static let name = "initialize"
    var clientName: String?
    var clientVersion: String?

    /// LSP clients send more (processId, capabilities, ...): ignored.
    init(params: ParamReader) throws {
        if let client = try params.optionalObject("clientInfo") {
            clientName = try client.string("name")
            clientVersion = try client.optionalString("version")
        }
    }
}

struct Shutdown: RPCMethod {
    static let name = "shutdown"
    init(params: ParamReader) throws {}
}

struct Exit: RPCMethod {
    static let name = "exit"
    init(params: ParamReader) throws {}
}

extension Server {
    func registerLifecycleMethods() {
        methods.register(Initialize.self) { [unowned self] request in
            lifecycle.initialized = true
            if let name = request.clientName {
                logger.info("client: \(name) \(request.clientVersion ?? "")")
            }
            return JSON.object([
                "serverInfo": ["name": "fetchd", "version": .string(configuration.version)],
                "protocolVersion": .integer(Int64(FetchdVersion.protocolVersion)),
                "capabilities": .object(capabilities),
            ])
        }
        methods.register(Shutdown.self) { [unowned self] _ in
            lifecycle.shutdownRequested = true
            return NullResult()
        }
        // A notification in LSP; sent as a request it is answered (null) before the process ends.
        methods.register(Exit.self) { [unowned self] _ in
            requestExit(lifecycle.shutdownRequested ? 0 : 1)
            return NullResult()
        }
    }
}
