import Model

/// How engine values are laid out in PostgreSQL, for the predicate compiler's parameters and
/// for reading key columns back: string text, integer bigint, double double precision,
/// boolean boolean, date double precision (seconds since 1970, UTC), binary bytea, uuid text
/// (lowercase canonical, so text order is byte order as in SQLite), to-one bigint (the
/// target's N). PostgreSQL text cannot hold U+0000: the generator refuses such constants.
public enum PGValueEncoding {
    public static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .uuid: return "text"
        case .integer: return "bigint"
        case .double, .date: return "double precision"
        case .boolean: return "boolean"
        case .binary: return "bytea"
        }
    }

    /// The SQL type a bound value is cast to in its placeholder (booleans as int8 0/1, so they
    /// compare with numbers); nil for null.
    static func parameterType(_ v: Value) -> String? {
        switch v {
        case .null, .objects: return nil
        case .string, .uuid: return "text"
        case .integer, .bool, .object: return "int8"
        case .double, .date: return "float8"
        case .binary: return "bytea"
        }
    }

    /// A value as text-format parameter of its `parameterType` (or of its column's type, for
    /// booleans written to a boolean column: PostgreSQL reads "1"/"0" as booleans too).
    public static func parameter(_ v: Value) -> String? {
        switch v {
        case .null, .objects: return nil
        case .string(let s), .uuid(let s): return s
        case .integer(let i): return String(i)
        case .bool(let b): return b ? "1" : "0"
        case .object(let id): return String(id.number)
        case .double(let d), .date(let d): return double(d)
        case .binary(let bytes):
            let digits = Array("0123456789abcdef".utf8)
            var out = Array("\\x".utf8)
            for b in bytes {
                out.append(digits[Int(b >> 4)])
                out.append(digits[Int(b & 15)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Shortest round-trip text, which float8in reads back exactly.
    static func double(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
        return "\(d)"
    }

    /// A column in text format read as the key path's type (nil text is null).
    public static func value(_ text: String?, as terminal: KeyTerminalType) -> Value {
        guard let text else { return .null }
        switch terminal {
        case .object(let entity): return Int64(text).map { .object(ObjectID(entity: entity, number: $0)) } ?? .null
        case .attribute(let type):
            switch type {
            case .string: return .string(text)
            case .uuid: return .uuid(text)
            case .integer: return Int64(text).map(Value.integer) ?? .null
            case .double: return Double(text).map(Value.double) ?? .null
            case .date: return Double(text).map(Value.date) ?? .null
            case .boolean: return .bool(text == "t")
            case .binary: return .binary(bytea(text))
            }
        }
    }

    /// What a key column holds: an attribute of a type, or an object of an entity.
    public enum KeyTerminalType: Sendable, Equatable {
        case attribute(AttributeType)
        case object(String)
    }

    /// bytea's hex output format, `\x0102ff`.
    static func bytea(_ text: String) -> [UInt8] {
        let hex = Array(text.utf8.dropFirst(2))
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 32) - 87 }
        return stride(from: 0, to: hex.count - 1, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }
}
