/// Serializes JSON into a byte buffer, compact, keys in their stored order. Written here rather
/// than with jansson's dumper because Debian's jansson 2.14 prints reals with `%.17g`
/// (`0.10000000000000001`); Swift's `description` is the shortest text that round-trips.
public struct JSONWriter {
    public var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: JSON) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let b): writeRaw(b ? "true" : "false")
        case .integer(let i): write(integer: i)
        case .double(let d): write(double: d)
        case .string(let s): write(string: s)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, item) in object.entries {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(string: key)
                bytes.append(UInt8(ascii: ":"))
                write(item)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends bytes that are already JSON (or framing) verbatim.
    @inlinable
    public mutating func writeRaw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inlinable
    public mutating func write(integer: Int64) {
        if integer == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        // Magnitude as unsigned so Int64.min needs no special case.
        var magnitude = integer.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes >= 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var i = buffer.count
            while magnitude > 0 {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            if integer < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: buffer[i...])
        }
    }

    /// The shortest decimal text that reads back as the same double. JSON has no NaN or
    /// infinity; they are written as `null` (documented in protocol.md).
    public mutating func write(double: Double) {
        guard double.isFinite else {
            writeRaw("null")
            return
        }
        var text = double.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Read in place (a native or small string, always on Linux): `withUTF8` needs a
        // mutable copy, a retain and a release per string written.
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var copy = string
            copy.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `utf8`'s bytes with JSON's escapes, without the quotes.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else { return }
        let n = utf8.count
        var runStart = 0
        var i = 0
        while i < n {
            // Eight bytes at a time while none needs an escape.
            while n - i >= 8, !Self.needsEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
                i += 8
            }
            guard i < n else { break }
            let byte = base[i]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if runStart < i {
                    bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart))
                }
                appendEscape(byte)
                runStart = i + 1
            }
            i += 1
        }
        if runStart < n {
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: n - runStart))
        }
    }

    /// Whether any of the eight bytes is below 0x20, a quote or a backslash: the classic
    /// "has a byte less than n" and "has a zero byte" word tests, exact for n <= 128.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        return control | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C)) != 0
    }

    private mutating func appendEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}

extension JSON {
    /// Compact UTF-8 bytes: no whitespace, never a raw newline (so NDJSON framing is safe).
    public var serialized: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    public var serializedString: String { String(decoding: serialized, as: UTF8.self) }
}

extension JSON: CustomStringConvertible {
    public var description: String { serializedString }
}
