import Glibc

/// Reads the JSON fetchd's messages almost always are straight from the bytes into `JSON`,
/// without building jansson's tree first and converting it (for a 1M-row batch insert that
/// tree was a third of the server's work).
///
/// It accepts only text it is sure jansson accepts, and gives the value jansson gives: strict
/// RFC 8259 grammar, integers that fit in 64 bits, reals through `strtod` as jansson reads
/// them, valid UTF-8, no control character in a string, no duplicate or NUL-carrying object
/// key, nesting up to `maxDepth`. On anything else it returns nil and `JSON.parse` asks
/// jansson, whose answer (value or error, with its reason and position) stands. So errors
/// and unusual input behave exactly as before; `JSONDirectParserTests` and the JSON fuzz
/// target check both parsers agree wherever this one answers.
struct JSONDirectParser {
    private let bytes: UnsafePointer<UInt8>
    private let end: Int
    private var i = 0
    private var depth = 0
    /// Object keys may hold U+0000, and a duplicate key keeps its last value in its first
    /// place, as jansson would: for the valid JSON jansson refuses (`JSON.parse`).
    private let nulKeys: Bool
    /// Deeper nesting is left to jansson (its own limit is 2048 levels).
    static let maxDepth = 512

    private init(_ bytes: UnsafePointer<UInt8>, _ count: Int, nulKeys: Bool) {
        self.bytes = bytes
        self.end = count
        self.nulKeys = nulKeys
    }

    /// The value of the whole text, or nil when jansson should decide.
    static func parse(_ raw: UnsafeRawBufferPointer, nulKeys: Bool = false) -> JSON? {
        guard let base = raw.baseAddress, raw.count > 0 else { return nil }
        var parser = JSONDirectParser(base.assumingMemoryBound(to: UInt8.self), raw.count, nulKeys: nulKeys)
        parser.skipSpace()
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        // (Not a ternary: JSON is ExpressibleByNilLiteral, so `nil` there would be JSON.null.)
        guard parser.i == parser.end else { return nil }
        return value
    }

    @inline(__always) private mutating func skipSpace() {
        while i < end {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func value() -> JSON? {
        guard i < end else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "\""): return string().map(JSON.string)
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return nil
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSON) -> JSON? {
        let n = word.utf8CodeUnitCount
        guard end - i >= n, memcmp(bytes + i, word.utf8Start, n) == 0 else { return nil }
        i += n
        // jansson reads a whole word of letters as one token: "truex" is not "true".
        if i < end, Self.isLetter(bytes[i]) { return nil }
        return value
    }

    // `array` and `object` each keep their own comma loop: one loop shared through a closure
    // taking the parser inout made a large insert slower (Benchmarks/README.md, "Measurements
    // behind the code").
    private mutating func array() -> JSON? {
        guard depth < Self.maxDepth else { return nil }
        depth += 1
        i += 1
        var items: [JSON] = []
        skipSpace()
        if i < end, bytes[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(items)
        }
        // Room for a short array's items at once: appending to an empty array would grow it
        // one reallocation at a time (a row of three values took three allocations).
        items.reserveCapacity(4)
        while true {
            guard let item = value() else { return nil }
            items.append(item)
            skipSpace()
            guard i < end else { return nil }
            switch bytes[i] {
            case UInt8(ascii: ","):
                i += 1
                skipSpace()
            case UInt8(ascii: "]"):
                i += 1
                depth -= 1
                return .array(items)
            default:
                return nil
            }
        }
    }

    private mutating func object() -> JSON? {
        guard depth < Self.maxDepth else { return nil }
        depth += 1
        i += 1
        var entries: [(key: String, value: JSON)] = []
        skipSpace()
        if i < end, bytes[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(JSONObject())
        }
        entries.reserveCapacity(4)
        while true {
            // jansson refuses a key holding U+0000, which only an escape spells: a key as long
            // as its text between the quotes has none.
            let keyStart = i
            guard i < end, bytes[i] == UInt8(ascii: "\""), let key = string(),
                nulKeys || i - keyStart - 2 == key.utf8.count || !key.utf8.contains(0)
            else { return nil }
            skipSpace()
            guard i < end, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            guard let item = value() else { return nil }
            entries.append((key, item))
            skipSpace()
            guard i < end else { return nil }
            switch bytes[i] {
            case UInt8(ascii: ","):
                i += 1
                skipSpace()
            case UInt8(ascii: "}"):
                i += 1
                depth -= 1
                // Duplicate keys are rare: left to jansson, which keeps the last value.
                if Self.hasDuplicateKey(entries) {
                    guard nulKeys else { return nil }
                    var object = JSONObject()
                    for (key, item) in entries { object[key] = item }
                    return .object(object)
                }
                return .object(JSONObject(uniqueEntries: entries))
            default:
                return nil
            }
        }
    }

    private static func hasDuplicateKey(_ entries: [(key: String, value: JSON)]) -> Bool {
        if entries.count <= 8 {
            for a in entries.indices {
                for b in entries.index(after: a)..<entries.endIndex where entries[a].key == entries[b].key {
                    return true
                }
            }
            return false
        }
        var seen = Set<String>(minimumCapacity: entries.count)
        return entries.contains { !seen.insert($0.key).inserted }
    }

    /// At an opening quote: the string, or nil.
    private mutating func string() -> String? {
        i += 1
        let start = i
        var ascii = true
        while i < end {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(start: bytes + start, count: i - start)
                i += 1
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") { return escapedString(from: start) }
            if c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        return nil
    }

    /// The rest of a string holding an escape; `start` is just after its opening quote.
    private mutating func escapedString(from start: Int) -> String? {
        var text = Array(UnsafeBufferPointer(start: bytes + start, count: i - start))
        while i < end {
            let c = bytes[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(validating: text, as: UTF8.self)
            case 0..<0x20:
                return nil
            case UInt8(ascii: "\\"):
                guard i < end else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(e)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = escapedScalar() else { return nil }
                    text.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    return nil
                }
            default:
                text.append(c)
            }
        }
        return nil
    }

    /// After `\u`: the scalar, a surrogate pair taken together; nil for a lone surrogate.
    private mutating func escapedScalar() -> Unicode.Scalar? {
        guard let first = hex4() else { return nil }
        switch first {
        case 0xD800..<0xDC00:
            guard end - i >= 2, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return nil }
            i += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00))
        case 0xDC00..<0xE000:
            return nil
        default:
            return Unicode.Scalar(first)
        }
    }

    private mutating func hex4() -> UInt32? {
        guard end - i >= 4 else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            i += 1
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    private mutating func number() -> JSON? {
        let start = i
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < end, Self.isDigit(bytes[i]) else { return nil }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < end, Self.isDigit(bytes[i]) { return nil } // a leading zero
        } else {
            skipDigits()
        }
        guard i < end, bytes[i] == UInt8(ascii: ".") || bytes[i] | 0x20 == UInt8(ascii: "e") else {
            return integer(from: negative ? start + 1 : start, negative: negative)
        }
        if bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end, Self.isDigit(bytes[i]) else { return nil }
            skipDigits()
        }
        if i < end, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < end, Self.isDigit(bytes[i]) else { return nil }
            skipDigits()
        }
        return real(from: start)
    }

    /// The digits before `i` as an Int64; nil when they do not fit (jansson's range error).
    private func integer(from first: Int, negative: Bool) -> JSON? {
        var magnitude: UInt64 = 0
        for k in first..<i {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[k] &- UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return .integer(Int64(magnitude))
    }

    /// The text before `i` read by `strtod`, as jansson reads a real; nil when it overflows.
    private func real(from first: Int) -> JSON? {
        let length = i - first
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer -> JSON? in
            let base = buffer.baseAddress!
            UnsafeMutableRawPointer(base).copyMemory(from: bytes + first, byteCount: length)
            base[length] = 0
            var stop: UnsafeMutablePointer<CChar>? = nil
            let value = strtod(base, &stop)
            guard stop == base + length, value.isFinite else { return nil }
            return .double(value)
        }
    }

    @inline(__always) private mutating func skipDigits() {
        while i < end, Self.isDigit(bytes[i]) { i += 1 }
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }
    @inline(__always) private static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) &- UInt8(ascii: "a") < 26 }
}
