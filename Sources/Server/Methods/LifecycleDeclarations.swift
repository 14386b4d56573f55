import JSON
import JSONRPC

/// LSP's lifecycle (protocol.md §2).
public enum LifecycleDeclarations {
    public static let initialize = MethodDeclaration<InitializeParams, InitializeResult>(
        "initialize", "Starts the session (optional; when sent, the first request).",
        errors: [.invalidParams, .initializeNotFirst, .alreadyInitialized])
    public static let initialized = ClientNotification<NoParams>(
        "initialized", "The client has read the initialize result (ignored).")
    public static let shutdown = MethodDeclaration<NoParams, NullResult>(
        "shutdown", "Ends the session: afterwards only exit is accepted.", errors: [.invalidParams])
    public static let exit = ClientNotification<NoParams>(
        "exit", "Ends the process: code 0 after shutdown, 1 otherwise (as a request, answered null first).",
        answersRequests: true)
    public static let cancelRequest = ClientNotification<CancelRequestParams>(
        "$/cancelRequest", "Ignored: each request is answered before the next message is read.")
    /// `$/setTrace`, `$/progress`, `$/logTrace`, ...: LSP says a server may ignore them.
    public static let dollarNotifications = IgnoredNotificationPrefix(
        "$/", "LSP's optional notifications: accepted and ignored, without a log line.")
}

public struct InitializeParams: PlainParams {
    static let name = Param<String>.required("name", .string)
    static let version = Param<String?>.optional("version", .string)
    static let clientInfo = Param<JSONObject?>.optional(
        "clientInfo", .object(members: [name, version], closed: false),
        "Logged; other LSP members (processId, capabilities, ...) are ignored.")
    public static let params = ParamSpec.list(clientInfo)
    var clientName: String?
    var clientVersion: String?

    public init(params p: ParamReader) throws {
        if let client = try p.members(Self.clientInfo) {
            clientName = try client[Self.name]
            clientVersion = try client[Self.version]
        }
    }
}

public struct InitializeResult: RPCResult {
    public static let resultName = "initializeResult"
    public static let schema = Schema.object(
        [
            (
                "serverInfo",
                .object(
                    [("name", .const("fetchd")), ("version", .string)], required: ["name", "version"], closed: true)
            ),
            ("protocolVersion", .integer),
            ("capabilities", .object([("batch", .boolean)], required: ["batch"], additional: .any)),
        ], required: ["serverInfo", "protocolVersion", "capabilities"], closed: true)

    let version: String
    let capabilities: JSONObject

    public var json: JSON {
        .object([
            "serverInfo": ["name": "fetchd", "version": .string(version)],
            "protocolVersion": .integer(Int64(FetchdVersion.protocolVersion)),
            "capabilities": .object(capabilities),
        ])
    }
}

public struct CancelRequestParams: PlainParams {
    static let id = Param<JSON>.required("id", .types("string", "integer"), "The request to cancel.")
    public static let params = ParamSpec.list(id)
    public init(params p: ParamReader) throws { _ = try p[Self.id] }
}
