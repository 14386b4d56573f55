import JSON
import JSONRPC

/// Reads by-name parameters. Every accessor turns a missing or mistyped parameter into -32602
/// with `data: {kind: "invalidParams", param, expected, got}`, so handlers never check by hand.
/// `null` counts as absent: optional accessors return nil, required ones report `got: "null"`.
public struct ParamReader: Sendable {
    public let object: JSONObject
    /// Prefix naming where this object sits (`request.`), so nested errors name the full path.
    public let path: String

    public init(_ object: JSONObject = JSONObject(), path: String = "") {
        self.object = object
        self.path = path
    }

    /// Params as a request carries them. Absent, `null` and `[]` mean "no parameters";
    /// a non-empty array is by-position, which fetchd's by-name methods reject.
    public init(params: Params?) throws(RPCError) {
        switch params {
        case nil: self.init()
        case .byName(let o)?: self.init(o)
        case .byPosition(let a)? where a.isEmpty: self.init()
        case .byPosition?:
            throw RPCError.invalidParams(param: "params", expected: "object (parameters by name)", got: "array")
        }
    }

    /// The full name of a parameter, for error data.
    public func name(_ key: String) -> String { path + key }

    /// The value, or nil when absent or null.
    public func value(_ key: String) -> JSON? {
        switch object[key] {
        case nil, .null?: return nil
        case let v?: return v
        }
    }

    public func has(_ key: String) -> Bool { value(key) != nil }

    // MARK: Generic accessors

    public func required<T: ParamValue>(_ key: String, as type: T.Type = T.self) throws(RPCError) -> T {
        guard let raw = object[key] else { throw mismatch(key, T.expected, got: "missing") }
        guard let v = T(param: raw) else { throw mismatch(key, T.expected, got: Self.describe(raw)) }
        return v
    }

    public func optional<T: ParamValue>(_ key: String, as type: T.Type = T.self) throws(RPCError) -> T? {
        guard let raw = value(key) else { return nil }
        guard let v = T(param: raw) else { throw mismatch(key, T.expected, got: Self.describe(raw)) }
        return v
    }

    public func array<T: ParamValue>(_ key: String, of type: T.Type = T.self) throws(RPCError) -> [T] {
        let items: [JSON] = try required(key)
        return try elements(key, items)
    }

    public func optionalArray<T: ParamValue>(_ key: String, of type: T.Type = T.self) throws(RPCError) -> [T]? {
        guard let items: [JSON] = try optional(key) else { return nil }
        return try elements(key, items)
    }

    // MARK: Named accessors (the common cases)

    public func string(_ key: String) throws(RPCError) -> String { try required(key) }
    public func optionalString(_ key: String) throws(RPCError) -> String? { try optional(key) }
    public func int(_ key: String) throws(RPCError) -> Int { try required(key) }
    public func optionalInt(_ key: String) throws(RPCError) -> Int? { try optional(key) }
    public func double(_ key: String) throws(RPCError) -> Double { try required(key) }
    public func optionalDouble(_ key: String) throws(RPCError) -> Double? { try optional(key) }
    public func bool(_ key: String) throws(RPCError) -> Bool { try required(key) }
    public func optionalBool(_ key: String) throws(RPCError) -> Bool? { try optional(key) }
    public func stringArray(_ key: String) throws(RPCError) -> [String] { try array(key) }
    public func optionalStringArray(_ key: String) throws(RPCError) -> [String]? { try optionalArray(key) }
    /// Any JSON value, present and not null (raw JSON for the handler to interpret).
    public func json(_ key: String) throws(RPCError) -> JSON {
        guard let raw = object[key] else { throw mismatch(key, "a value", got: "missing") }
        guard raw != .null else { throw mismatch(key, "a value", got: "null") }
        return raw
    }

    /// Any JSON value, or nil when absent or null.
    public func optionalJSON(_ key: String) -> JSON? { value(key) }

    /// A nested object, read with the same rules; its errors name `key.inner`.
    public func object(_ key: String) throws(RPCError) -> ParamReader {
        ParamReader(try required(key, as: JSONObject.self), path: name(key) + ".")
    }

    public func optionalObject(_ key: String) throws(RPCError) -> ParamReader? {
        try optional(key, as: JSONObject.self).map { ParamReader($0, path: name(key) + ".") }
    }

    /// A nested structure with its own decoding (e.g. a FetchRequest).
    public func decode<T: ParamDecodable>(_ key: String, as type: T.Type = T.self) throws -> T {
        try T(from: object(key))
    }

    public func optionalDecode<T: ParamDecodable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard let reader = try optionalObject(key) else { return nil }
        return try T(from: reader)
    }

    /// An error about a parameter's value that its type alone cannot express
    /// (e.g. a negative limit): -32602 with `{kind: "invalidParams", param, expected, got}`.
    public func mismatch(_ key: String, _ expected: String, got: String) -> RPCError {
        .invalidParams(param: name(key), expected: expected, got: got)
    }

    private func elements<T: ParamValue>(_ key: String, _ items: [JSON]) throws(RPCError) -> [T] {
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard let v = T(param: item) else {
                throw RPCError.invalidParams(
                    param: "\(name(key))[\(i)]", expected: T.expected, got: Self.describe(item))
            }
            result.append(v)
        }
        return result
    }

    static func describe(_ value: JSON) -> String { value.typeName }
}

/// A structure decoded from a params object (or a nested object inside one).
public protocol ParamDecodable {
    init(from params: ParamReader) throws
}
