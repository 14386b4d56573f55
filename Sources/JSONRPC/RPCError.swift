import JSON

/// A JSON-RPC error object: only `code`, `message` and `data` ever reach the wire
/// (python-lsp-jsonrpc rejects any other key).
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSON?

    public init(code: Int, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(code) \(message)\(data.map { " \($0)" } ?? "")" }

    public var json: JSON {
        var o: JSONObject = ["code": .integer(Int64(code)), "message": .string(message)]
        if let data { o["data"] = data }
        return .object(o)
    }
}

/// The codes JSON-RPC 2.0 defines. Server codes (-32000...-32099) are in the Server's table.
extension RPCError {
    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603

    /// Not JSON (or JSON fetchd cannot represent, such as an integer beyond 64 bits).
    public static func parseError(_ reason: String, _ extra: [(String, JSON)] = []) -> RPCError {
        RPCError(
            code: parseErrorCode, message: "Parse error",
            data: .object(JSONObject([("kind", "parseError"), ("reason", .string(reason))] + extra)))
    }

    /// JSON, but not a valid Request object.
    public static func invalidRequest(
        _ reason: String, kind: String = "invalidRequest",
        _ extra: [(String, JSON)] = []
    ) -> RPCError {
        RPCError(
            code: invalidRequestCode, message: "Invalid Request",
            data: .object(JSONObject([("kind", .string(kind)), ("reason", .string(reason))] + extra)))
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(
            code: methodNotFoundCode, message: "Method not found",
            data: ["kind": "methodNotFound", "method": .string(method)])
    }

    /// A parameter is missing or has the wrong type. `param` is its path (`request.entity`).
    public static func invalidParams(param: String, expected: String, got: String) -> RPCError {
        RPCError(
            code: invalidParamsCode, message: "Invalid params",
            data: [
                "kind": "invalidParams", "param": .string(param),
                "expected": .string(expected), "got": .string(got),
            ])
    }

    public static func internalError(_ reason: String) -> RPCError {
        RPCError(
            code: internalErrorCode, message: "Internal error",
            data: ["kind": "internal", "reason": .string(reason)])
    }
}

extension RPCError {
    /// The wire error for a framing problem; the message's id is unknown, so it is answered with id null.
    public init(_ framing: FramingError) {
        switch framing {
        case .malformedHeader(let reason):
            self = .parseError("malformed header: \(reason)")
        case .unsupportedCharset(let charset):
            self = .parseError("unsupported charset '\(charset)': fetchd reads UTF-8 only")
        case .tooLarge(let size, let limit):
            var extra: [(String, JSON)] = [("limit", .integer(Int64(limit)))]
            if let size { extra.insert(("size", .integer(Int64(size))), at: 0) }
            self = .invalidRequest(
                "message larger than the \(limit)-byte limit (--max-message-size)",
                kind: "messageTooLarge", extra)
        }
    }
}
