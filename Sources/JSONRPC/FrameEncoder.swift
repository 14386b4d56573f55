import JSON

/// Builds one outgoing frame in a single buffer, so it can go out in one write(2).
/// The body is serialized after room reserved for the LSP header, which is then filled in
/// just before it: no second copy of the body.
public struct FrameEncoder: Sendable {
    public let framing: Framing
    /// Room for `Content-Length: <up to 20 digits>\r\n\r\n`.
    static let headerRoom = 40

    public init(framing: Framing) { self.framing = framing }

    /// Frames a message serialized by `body` into the writer it is given.
    public func frame(_ body: (inout JSONWriter) -> Void) -> Frame {
        var writer = JSONWriter(capacity: 256)
        return frame(in: &writer, body)
    }

    /// `frame(_:)` in `writer`'s buffer, emptied first: a caller framing several messages in
    /// a row reuses one allocation once it let go of the last frame.
    public func frame(in writer: inout JSONWriter, _ body: (inout JSONWriter) -> Void) -> Frame {
        writer.bytes.removeAll(keepingCapacity: true)
        if framing == .lsp { writer.bytes.append(contentsOf: repeatElement(0, count: Self.headerRoom)) }
        body(&writer)
        switch framing {
        case .ndjson:
            writer.bytes.append(0x0A)
            return Frame(bytes: writer.bytes, offset: 0)
        case .lsp:
            // Exactly this header, alone: pygls and python-lsp-jsonrpc read it that strictly.
            let header = Array("Content-Length: \(writer.bytes.count - Self.headerRoom)\r\n\r\n".utf8)
            let offset = Self.headerRoom - header.count
            writer.bytes.replaceSubrange(offset..<Self.headerRoom, with: header)
            return Frame(bytes: writer.bytes, offset: offset)
        }
    }

    public func frame(_ json: JSON) -> Frame { frame { $0.write(json) } }
}

/// The bytes of one framed message: `bytes[offset...]`.
public struct Frame: Sendable {
    public var bytes: [UInt8]
    public var offset: Int

    public var contents: ArraySlice<UInt8> { bytes[offset...] }
}
