import JSON
import JSONRPC

/// The two eras of the Model Context Protocol fetchd speaks (protocol.md §15). A connection
/// settles on one with its first request that decides: `initialize` (the handshake era) or a
/// request carrying the 2026-07-28 envelope in `params._meta` (the per-request era).
enum MCPRevision: Equatable, Sendable {
    /// 2025-11-25 and the handshake revisions before it: `initialize`, then plain requests.
    case handshake(String)
    /// 2026-07-28: `server/discover`, each request carrying its version in `_meta`.
    case modern

    static let modernVersion = "2026-07-28"
    /// Offered back to an `initialize` naming a version fetchd does not know.
    static let latestHandshake = "2025-11-25"
    static let handshakeVersions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]

    /// The reserved `_meta` keys of the 2026-07-28 envelope and its streams.
    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
    static let subscriptionKey = "io.modelcontextprotocol/subscriptionId"

    /// MCP's own error codes beside JSON-RPC's.
    static let unsupportedVersionCode = -32022
    static let resourceNotFoundCode = -32002

    var isModern: Bool { self == .modern }

    /// The envelope's protocol version when `params._meta` carries one: that key alone marks
    /// a request of the modern era (legacy requests may carry `_meta` with a progress token).
    static func envelopeVersion(_ params: Params?) -> JSON? {
        guard case .byName(let o)? = params, let meta = o["_meta"]?.objectValue else { return nil }
        return meta[versionKey]
    }

    /// The modern envelope's checks, in the order the SDK's server makes them: both required
    /// keys present, then a version fetchd serves.
    static func checkEnvelope(_ params: Params?, version: JSON) throws(RPCError) {
        guard case .byName(let o)? = params, let meta = o["_meta"]?.objectValue, meta[capabilitiesKey] != nil else {
            throw RPCError(
                code: RPCError.invalidParamsCode,
                message: "params._meta is missing the required envelope key \(capabilitiesKey)")
        }
        guard case .string(let requested) = version else {
            throw RPCError(code: RPCError.invalidParamsCode, message: "\(versionKey) must be a string")
        }
        guard requested == modernVersion else { throw unsupported(requested: .string(requested)) }
    }

    /// -32022 naming the versions served on this path, as the SDK's probe expects.
    static func unsupported(requested: JSON) -> RPCError {
        RPCError(
            code: unsupportedVersionCode, message: "Unsupported protocol version",
            data: ["supported": [.string(modernVersion)], "requested": requested])
    }

    static let serverInfo: JSON = ["name": "fetchd", "version": .string(FetchdVersion.current)]
}
