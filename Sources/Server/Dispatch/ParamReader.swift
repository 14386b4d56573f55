import JSON
import JSONRPC

/// A by-name param, declared once: its spec is what the OpenRPC document lists and what
/// ParamReader checks a value against, and `Value` is what reading it gives (nil for an
/// optional param left out or null).
///
///     static let name = Param<String>.required("name", Schema.string.minLength(1), "Unique.")
///     static let notify = Param<JSONObject?>.optional("notify", .object(members: [keys, mode]))
///     static let params = ParamSpec.list(name, notify)
///     ...
///     name = try p[Self.name]
public struct Param<Value: Sendable>: ParamKey {
    public let spec: ParamSpec
    /// What an absent (or null) param reads as: `.some(nil)` for an optional one, nil when required.
    let absent: Value?
    /// The checked value as `Value`; `path` names it for a decoder's own errors.
    let convert: @Sendable (_ value: JSON, _ path: String) throws -> Value
}

/// Any param, for lists of params of different types.
public protocol ParamKey: Sendable {
    var spec: ParamSpec { get }
}

extension ParamSpec {
    /// The specs of params, in document order.
    public static func list(_ keys: any ParamKey...) -> [ParamSpec] { keys.map(\.spec) }
}

extension Param where Value: ParamValue {
    public static func required(_ name: String, _ schema: Schema, _ description: String? = nil) -> Param {
        Param(spec: .required(name, schema, description), absent: nil) { json, path throws(RPCError) in
            guard let v = Value(param: json) else {
                throw RPCError.invalidParams(param: path, expected: schema.expected, got: json.typeName)
            }
            return v
        }
    }
}

extension Param where Value: ParamDecodable {
    public static func required(_ name: String, _ schema: Schema, _ description: String? = nil) -> Param {
        Param(spec: .required(name, schema, description), absent: nil) { json, path in
            try Value(from: ParamReader(json.objectValue ?? JSONObject(), path: path + "."))
        }
    }
}

extension Param {
    public static func optional<Wrapped: ParamValue>(
        _ name: String, _ schema: Schema, _ description: String? = nil
    ) -> Param<Wrapped?> where Value == Wrapped? {
        let required = Param<Wrapped>.required(name, schema, description)
        return Param<Wrapped?>(spec: .optional(name, schema, description), absent: .some(nil)) {
            try required.convert($0, $1)
        }
    }

    public static func optional<Wrapped: ParamDecodable>(
        _ name: String, _ schema: Schema, _ description: String? = nil
    ) -> Param<Wrapped?> where Value == Wrapped? {
        let required = Param<Wrapped>.required(name, schema, description)
        return Param<Wrapped?>(spec: .optional(name, schema, description), absent: .some(nil)) {
            try required.convert($0, $1)
        }
    }
}

/// Reads by-name params through their declarations (`p[Self.name]`): a param's value is
/// checked against its schema (Schema.check) before it is converted, so a missing, mistyped
/// or otherwise refused param is -32602 with `data: {kind: "invalidParams", param, expected,
/// got}` and handlers never check by hand. `null` counts as absent unless the schema takes
/// null: optional params read as nil, required ones report `got: "null"`.
public struct ParamReader: Sendable {
    public let object: JSONObject
    /// Prefix naming where this object sits (`request.`), so nested errors name the full path.
    public let path: String
    /// The params the method lists, when known: reading another is a programming error (a
    /// param the document would not list), caught in debug builds.
    var listed: [ParamSpec] = []

    public init(_ object: JSONObject = JSONObject(), path: String = "") {
        self.object = object
        self.path = path
    }

    init(params: Params?, listed: [ParamSpec]) throws(RPCError) {
        try self.init(params: params)
        self.listed = listed
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

    /// Whether the param is given (and not null).
    public func has(_ key: any ParamKey) -> Bool {
        switch object[key.spec.name] {
        case nil, .null?: return false
        default: return true
        }
    }

    /// The param's value, checked against its schema and converted.
    public subscript<Value>(_ key: Param<Value>) -> Value {
        get throws {
            let spec = key.spec
            assert(listed.isEmpty || listed.contains { $0.name == spec.name }, "\(spec.name) is read but not listed")
            let raw = object[spec.name]
            guard let value = raw, value != .null || spec.schema.admitsNull else {
                if let absent = key.absent { return absent }
                throw mismatch(spec.name, spec.schema.expected, got: raw == nil ? "missing" : "null")
            }
            let path = name(spec.name)
            try spec.schema.check(value, at: path)
            return try key.convert(value, path)
        }
    }

    /// An object param as a reader of its members (named `key.member` in errors).
    public func members(_ key: Param<JSONObject>) throws -> ParamReader {
        ParamReader(try self[key], path: name(key.spec.name) + ".")
    }

    public func members(_ key: Param<JSONObject?>) throws -> ParamReader? {
        try self[key].map { ParamReader($0, path: name(key.spec.name) + ".") }
    }

    /// An error about params that no one param's schema can state (two params that exclude
    /// each other, say): -32602 with `{kind: "invalidParams", param, expected, got}`.
    public func mismatch(_ key: String, _ expected: String, got: String) -> RPCError {
        .invalidParams(param: name(key), expected: expected, got: got)
    }
}

/// A structure decoded from a params object (or a nested object inside one) its schema has
/// checked.
public protocol ParamDecodable: Sendable {
    init(from params: ParamReader) throws
}
