import CLibPQ

/// A failure reported by libpq or the server.
public struct PGError: Error, CustomStringConvertible, Sendable {
    /// The five-character SQLSTATE (e.g. "23505"), or nil when the failure is client-side
    /// (connection lost, out of memory) and the server sent none.
    public let sqlState: String?
    /// The primary message.
    public let message: String
    /// The server's DETAIL field, when it sent one.
    public let detail: String?
    /// True when the connection is no longer usable (CONNECTION_BAD); the caller should `reset()`.
    public let connectionBroken: Bool

    public init(sqlState: String?, message: String, detail: String? = nil, connectionBroken: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.connectionBroken = connectionBroken
    }

    public var description: String {
        var text = message
        if let sqlState { text = "[\(sqlState)] " + text }
        if let detail { text += " (\(detail))" }
        if connectionBroken { text += " [connection broken]" }
        return text
    }

    /// Builds the error from a failed result (which may be nil on out-of-memory).
    static func from(result: OpaquePointer?, connection: OpaquePointer?) -> PGError {
        let broken = connection.map { PQstatus($0) == CONNECTION_BAD } ?? true
        guard let result else {
            return PGError(sqlState: nil, message: connectionMessage(connection), connectionBroken: broken)
        }
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { String(cString: $0) }
        }
        let primary = field(Int32(UInt8(ascii: "M"))) ?? connectionMessage(connection)
        return PGError(
            sqlState: field(Int32(UInt8(ascii: "C"))), message: primary, detail: field(Int32(UInt8(ascii: "D"))),
            connectionBroken: broken)
    }

    static func connectionMessage(_ connection: OpaquePointer?) -> String {
        guard let connection, let raw = PQerrorMessage(connection) else { return "out of memory" }
        let text = String(cString: raw).trimmingSuffixNewlines()
        return text.isEmpty ? "unknown libpq error" : text
    }
}

extension String {
    func trimmingSuffixNewlines() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
