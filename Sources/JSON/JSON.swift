/// A JSON value. Objects keep their keys in insertion order, so output is deterministic
/// (same input bytes, same output bytes).
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// Every JSON integer that fits in 64 bits; larger ones are a parse error.
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

/// A JSON object: ordered keys, lookup by key. Setting an existing key replaces its value
/// in place; duplicate keys on input keep the last value (as jansson does).
public struct JSONObject: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public internal(set) var entries: [(key: String, value: JSON)]

    public init() { entries = [] }
    public init(_ entries: [(String, JSON)]) {
        self.entries = []
        self.entries.reserveCapacity(entries.count)
        for (k, v) in entries { self[k] = v }
    }
    public init(dictionaryLiteral elements: (String, JSON)...) { self.init(elements) }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    public subscript(key: String) -> JSON? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> { entries.makeIterator() }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

extension JSON {
    /// The JSON type name used in error data (`expected`/`got`).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
    public subscript(key: String) -> JSON? { objectValue?[key] }
}
