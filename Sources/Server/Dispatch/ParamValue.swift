import JSON

/// A type a parameter can be read as; `expected` is what error data says was wanted.
public protocol ParamValue {
    static var expected: String { get }
    init?(param: JSON)
}

extension String: ParamValue {
    public static var expected: String { "string" }
    public init?(param: JSON) {
        guard case .string(let s) = param else { return nil }
        self = s
    }
}

extension Int64: ParamValue {
    public static var expected: String { "integer" }
    /// An integral number such as `2.0` is accepted: some clients cannot tell them apart.
    public init?(param: JSON) {
        switch param {
        case .integer(let i): self = i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: self = Int64(d)
        default: return nil
        }
    }
}

extension Int: ParamValue {
    public static var expected: String { "integer" }
    public init?(param: JSON) {
        guard let i = Int64(param: param) else { return nil }
        self = Int(i)
    }
}

extension Double: ParamValue {
    public static var expected: String { "number" }
    public init?(param: JSON) {
        switch param {
        case .integer(let i): self = Double(i)
        case .double(let d): self = d
        default: return nil
        }
    }
}

extension Bool: ParamValue {
    public static var expected: String { "boolean" }
    public init?(param: JSON) {
        guard case .bool(let b) = param else { return nil }
        self = b
    }
}

extension JSONObject: ParamValue {
    public static var expected: String { "object" }
    public init?(param: JSON) {
        guard case .object(let o) = param else { return nil }
        self = o
    }
}

extension Array: ParamValue where Element == JSON {
    public static var expected: String { "array" }
    public init?(param: JSON) {
        guard case .array(let a) = param else { return nil }
        self = a
    }
}

extension JSON: ParamValue {
    public static var expected: String { "a value" }
    public init?(param: JSON) { self = param }
}
