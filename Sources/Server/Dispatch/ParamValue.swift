import JSON
import Model

/// A type a param's value converts to once its schema has checked it (error data says what
/// was wanted from the schema, Schema.expected).
public protocol ParamValue: Sendable {
    init?(param: JSON)
}

extension String: ParamValue {
    public init?(param: JSON) {
        guard case .string(let s) = param else { return nil }
        self = s
    }
}

extension Int64: ParamValue {
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
    public init?(param: JSON) {
        guard let i = Int64(param: param) else { return nil }
        self = Int(i)
    }
}

extension Double: ParamValue {
    public init?(param: JSON) {
        switch param {
        case .integer(let i): self = Double(i)
        case .double(let d): self = d
        default: return nil
        }
    }
}

extension Bool: ParamValue {
    public init?(param: JSON) {
        guard case .bool(let b) = param else { return nil }
        self = b
    }
}

extension JSONObject: ParamValue {
    public init?(param: JSON) {
        guard case .object(let o) = param else { return nil }
        self = o
    }
}

extension Array: ParamValue where Element: ParamValue {
    public init?(param: JSON) {
        guard case .array(let a) = param else { return nil }
        // Raw items (a batch's rows) are taken whole, not copied one by one.
        if let raw = a as? [Element] {
            self = raw
            return
        }
        var items: [Element] = []
        items.reserveCapacity(a.count)
        for item in a {
            guard let v = Element(param: item) else { return nil }
            items.append(v)
        }
        self = items
    }
}

/// A Swift enum read from its raw value (its schema is `Schema.cases`).
extension ParamValue where Self: RawRepresentable, RawValue == String {
    public init?(param: JSON) {
        guard case .string(let s) = param, let v = Self(rawValue: s) else { return nil }
        self = v
    }
}

extension ObjectID: ParamValue {
    public init?(param: JSON) {
        guard case .string(let s) = param, let id = ObjectID(s) else { return nil }
        self = id
    }
}

extension JSON: ParamValue {
    public init?(param: JSON) { self = param }
}
