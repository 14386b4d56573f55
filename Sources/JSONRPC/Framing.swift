/// How messages are delimited on stdin/stdout.
public enum Framing: String, Sendable, CaseIterable {
    /// One JSON text per line.
    case ndjson
    /// LSP base protocol: `Content-Length: N\r\n` (other headers allowed), `\r\n`, N bytes.
    case lsp
}

/// The `--framing` choice: a fixed framing, or detected from the first byte the client sends.
public enum FramingMode: String, Sendable, CaseIterable {
    case auto, ndjson, lsp

    public var fixed: Framing? {
        switch self {
        case .auto: return nil
        case .ndjson: return .ndjson
        case .lsp: return .lsp
        }
    }
}

/// Limits the decoder enforces. The message limit is configurable (`--max-message-size`).
public struct FramingLimits: Sendable {
    public static let defaultMaxMessageSize = 256 << 20
    /// A header block longer than this without its blank line is malformed.
    public static let maxHeaderSize = 8192

    public var maxMessageSize: Int

    public init(maxMessageSize: Int = FramingLimits.defaultMaxMessageSize) {
        self.maxMessageSize = maxMessageSize
    }
}
