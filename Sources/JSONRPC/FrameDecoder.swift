#if canImport(Glibc)
    import Glibc
#endif

/// A problem with the byte stream itself, found before any JSON is parsed.
public enum FramingError: Error, Equatable, Sendable {
    /// An LSP header block that is not `Name: value` lines with a decimal Content-Length.
    case malformedHeader(String)
    /// A message over the size limit; `size` is its announced length (LSP) or nil (NDJSON, where
    /// only "longer than the limit" is known). Its bytes are skipped, the stream stays in sync.
    case tooLarge(size: Int?, limit: Int)
    /// A Content-Type whose charset is not UTF-8; the message is skipped.
    case unsupportedCharset(String)
}

/// Splits a byte stream into messages. Feed it bytes as they arrive (any split: a message over
/// many reads, many messages in one read), then take events until `next()` returns nil.
///
/// Auto mode picks the framing from the first non-whitespace byte: `C`/`c` (a header name such
/// as Content-Length) means LSP, anything else NDJSON, so a stray non-JSON first line is
/// answered as a parse error rather than waited on as a header.
public struct FrameDecoder {
    public enum Event: Equatable, Sendable {
        case message([UInt8])
        case error(FramingError)
    }

    public private(set) var framing: Framing?
    public let limits: FramingLimits
    /// The header block (with its blank line) behind the last `malformedHeader` event that had
    /// one, so a recorder can reproduce it; empty for other events.
    public private(set) var rejectedHeader: [UInt8] = []

    private enum State {
        case detecting
        case line
        case discardLine
        case header
        case body(length: Int, badCharset: String?)
        case discard(remaining: Int)
        case resync
    }

    private var state: State
    private var buffer: [UInt8] = []
    /// Bytes before `start` are consumed; they are dropped at the next `feed`.
    private var start = 0
    /// Where to resume searching for a delimiter, so a long message is scanned once.
    private var scan = 0

    public init(mode: FramingMode = .auto, limits: FramingLimits = FramingLimits()) {
        self.limits = limits
        framing = mode.fixed
        switch mode.fixed {
        case nil: state = .detecting
        case .ndjson: state = .line
        case .lsp: state = .header
        }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scan -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Bytes received but not yet part of a complete message.
    public var pendingByteCount: Int { buffer.count - start }

    /// At end of input: an NDJSON last line without its newline still counts as a message.
    public mutating func finish() -> Event? {
        guard case .line = state, start < buffer.count else { return nil }
        let line = trimmedLine(start, buffer.count)
        start = buffer.count
        scan = start
        guard let line else { return nil }
        if line.count > limits.maxMessageSize { return .error(.tooLarge(size: nil, limit: limits.maxMessageSize)) }
        return .message(Array(buffer[line]))
    }

    public mutating func next() -> Event? {
        rejectedHeader.removeAll()
        while true {
            switch state {
            case .detecting:
                while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
                guard start < buffer.count else { return nil }
                let first = buffer[start]
                let detected: Framing = (first == UInt8(ascii: "C") || first == UInt8(ascii: "c")) ? .lsp : .ndjson
                framing = detected
                state = detected == .lsp ? .header : .line
                scan = start

            case .line:
                guard let newline = find(UInt8(ascii: "\n"), from: max(scan, start)) else {
                    scan = buffer.count
                    if buffer.count - start > limits.maxMessageSize {
                        start = buffer.count
                        state = .discardLine
                        return .error(.tooLarge(size: nil, limit: limits.maxMessageSize))
                    }
                    return nil
                }
                let range = trimmedLine(start, newline)
                start = newline + 1
                scan = start
                guard let range else { continue } // blank line
                if range.count > limits.maxMessageSize {
                    return .error(.tooLarge(size: nil, limit: limits.maxMessageSize))
                }
                return .message(Array(buffer[range]))

            case .discardLine:
                guard let newline = find(UInt8(ascii: "\n"), from: start) else {
                    start = buffer.count
                    return nil
                }
                start = newline + 1
                scan = start
                state = .line

            case .header:
                while start < buffer.count, Self.isWhitespace(buffer[start]) { start += 1 }
                guard let end = findHeaderEnd() else {
                    scan = max(start, buffer.count - 3)
                    if buffer.count - start > FramingLimits.maxHeaderSize {
                        start = buffer.count
                        state = .resync
                        return .error(
                            .malformedHeader("no blank line within \(FramingLimits.maxHeaderSize) bytes of header"))
                    }
                    return nil
                }
                let header = buffer[start..<end]
                start = end + 4
                scan = start
                switch Self.parseHeader(header) {
                case .failure(let error):
                    rejectedHeader = Array(header) + [0x0D, 0x0A, 0x0D, 0x0A]
                    state = .resync
                    return .error(error)
                case .success(let (length, badCharset)):
                    if length > limits.maxMessageSize {
                        state = .discard(remaining: length)
                        return .error(.tooLarge(size: length, limit: limits.maxMessageSize))
                    }
                    state = .body(length: length, badCharset: badCharset)
                }

            case .body(let length, let badCharset):
                guard buffer.count - start >= length else {
                    buffer.reserveCapacity(start + length)
                    return nil
                }
                let body = start..<(start + length)
                start += length
                scan = start
                state = .header
                if let badCharset { return .error(.unsupportedCharset(badCharset)) }
                if length == 0 { continue } // nothing to answer; as sourcekit-lsp, skip it
                return .message(Array(buffer[body]))

            case .discard(let remaining):
                let available = buffer.count - start
                if available < remaining {
                    start = buffer.count
                    state = .discard(remaining: remaining - available)
                    return nil
                }
                start += remaining
                scan = start
                state = .header

            case .resync:
                // Skip to the next "Content-Length" (any case): the start of the next message.
                if let found = findContentLength() {
                    start = found
                    scan = start
                    state = .header
                } else {
                    // Keep a tail that may hold the beginning of the name.
                    start = max(start, buffer.count - 13)
                    return nil
                }
            }
        }
    }

    // MARK: - Scanning

    private static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    private func find(_ byte: UInt8, from: Int) -> Int? {
        guard from < buffer.count else { return nil }
        return buffer.withUnsafeBytes { raw -> Int? in
            guard let found = memchr(raw.baseAddress! + from, Int32(byte), raw.count - from) else { return nil }
            return UnsafeRawPointer(found) - raw.baseAddress!
        }
    }

    /// The line's bytes without a trailing `\r`, or nil when the line is only whitespace.
    private func trimmedLine(_ from: Int, _ to: Int) -> Range<Int>? {
        var end = to
        if end > from, buffer[end - 1] == 0x0D { end -= 1 }
        var i = from
        while i < end, Self.isWhitespace(buffer[i]) { i += 1 }
        return i == end ? nil : from..<end
    }

    /// Index of the `\r\n\r\n` ending the header block at `start`.
    private func findHeaderEnd() -> Int? {
        var i = max(scan, start)
        while let cr = find(0x0D, from: i) {
            if cr + 3 >= buffer.count { return nil }
            if buffer[cr + 1] == 0x0A, buffer[cr + 2] == 0x0D, buffer[cr + 3] == 0x0A { return cr }
            i = cr + 1
        }
        return nil
    }

    private func findContentLength() -> Int? {
        let name = Array("content-length".utf8)
        var i = start
        while i + name.count <= buffer.count {
            var matched = true
            for j in 0..<name.count where Self.lowercased(buffer[i + j]) != name[j] {
                matched = false
                break
            }
            if matched { return i }
            i += 1
        }
        return nil
    }

    private static func lowercased(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b + 0x20 : b
    }

    // MARK: - Header parsing

    /// Header names match case-insensitively, in any order; only Content-Length is required.
    private static func parseHeader(_ header: ArraySlice<UInt8>) -> Result<(Int, String?), FramingError> {
        var length: Int?
        var badCharset: String?
        let text = String(decoding: header, as: UTF8.self)
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(.malformedHeader("header line without a colon: \(quoted(line))"))
            }
            let name = line[..<colon].trimmingASCIIWhitespace().lowercased()
            let value = line[line.index(after: colon)...].trimmingASCIIWhitespace()
            switch name {
            case "content-length":
                guard !value.isEmpty, value.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let n = Int(value)
                else {
                    return .failure(.malformedHeader("Content-Length is not a decimal byte count: \(quoted(value))"))
                }
                if let length, length != n {
                    return .failure(.malformedHeader("two different Content-Length headers"))
                }
                length = n
            case "content-type":
                if let charset = charset(of: value), charset != "utf-8", charset != "utf8" {
                    badCharset = charset
                }
            case "":
                return .failure(.malformedHeader("header line without a name: \(quoted(line))"))
            default:
                break
            }
        }
        guard let length else { return .failure(.malformedHeader("no Content-Length header")) }
        return .success((length, badCharset))
    }

    private static func charset(of contentType: Substring) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingASCIIWhitespace().lowercased() == "charset" else { continue }
            var value = parts[1].trimmingASCIIWhitespace()
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.lowercased()
        }
        return nil
    }

    private static func quoted(_ s: Substring) -> String {
        "'" + (s.count > 80 ? s.prefix(80) + "..." : s) + "'"
    }
}

extension Substring {
    func trimmingASCIIWhitespace() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
