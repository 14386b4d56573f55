import JSON

/// Diagnostics (protocol.md §1.6) and the method list itself (protocol.md §14).
public enum ServerDeclarations {
    public static let discover = MethodDeclaration<NoParams, DiscoverResult>(
        "rpc.discover", "This server's OpenRPC document: every method and notification.", errors: [.invalidParams])
    public static let ping = MethodDeclaration<NoParams, EmptyResult>(
        "server/ping", "Answers {} (a round trip).", errors: [.invalidParams])
    public static let echo = MethodDeclaration<EchoParams, EchoResult>(
        "server/echo", "Answers value, as fetchd reads and writes it.", errors: [.invalidParams])
}

public struct EchoParams: PlainParams {
    static let value = Param<JSON>.required("value", Schema.any.notNull, "Any value but null.")
    public static let params = ParamSpec.list(value)
    let value: JSON
    public init(params p: ParamReader) throws { value = try p[Self.value] }
}

public struct EchoResult: RPCResult {
    public static let resultName = "value"
    public static let schema = Schema.any
    let value: JSON
    public var json: JSON { value }
}

public struct DiscoverResult: RPCResult {
    public static let resultName = "OpenRPC"
    public static let schema = Schema.object(
        [
            ("openrpc", .string), ("info", .object([])), ("methods", .array(.object([]))),
            ("components", .object([])),
        ],
        required: ["openrpc", "info", "methods"]
    )
    .describe("An OpenRPC 1.3 document (protocol.md §14).")
    let document: JSON
    public var json: JSON { document }
}
