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
    public static let params: [ParamSpec] = [
        .optional(
            "clientInfo", .object([("name", .string), ("version", .string)], required: ["name"]),
            "Logged; other LSP members (processId, capabilities, ...) are ignored.")
    ]
    var clientName: String?
    var clientVersion: String?

    public init(params: ParamReader) throws {
        if let client = try params.optionalObject("clientInfo") {
            clientName = try client.string("name")
            clientVersion = try client.optionalString("version")
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
    public static let params: [ParamSpec] = [.required("id", .types("string", "integer"), "The request to cancel.")]
    public init(params: ParamReader) throws {
        let id = try params.json("id")
        switch id {
        case .string, .integer: break
        default: throw params.mismatch("id", "string or integer", got: id.typeName)
        }
    }
}
