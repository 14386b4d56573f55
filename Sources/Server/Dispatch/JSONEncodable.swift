import JSON

/// A method result: anything that can say what it looks like on the wire.
public protocol JSONEncodable {
    var json: JSON { get }
}

extension JSON: JSONEncodable { public var json: JSON { self } }
extension JSONObject: JSONEncodable { public var json: JSON { .object(self) } }
extension String: JSONEncodable { public var json: JSON { .string(self) } }
extension Int: JSONEncodable { public var json: JSON { .integer(Int64(self)) } }
extension Int64: JSONEncodable { public var json: JSON { .integer(self) } }
extension Double: JSONEncodable { public var json: JSON { .double(self) } }
extension Bool: JSONEncodable { public var json: JSON { .bool(self) } }
extension Array: JSONEncodable where Element: JSONEncodable { public var json: JSON { .array(map(\.json)) } }
extension Optional: JSONEncodable where Wrapped: JSONEncodable { public var json: JSON { self?.json ?? .null } }

/// `{}`: the result of methods that only report success.
public struct EmptyResult: JSONEncodable, Sendable {
    public init() {}
    public var json: JSON { .object(JSONObject()) }
}

/// `null`: LSP's "no result" (e.g. `shutdown`).
public struct NullResult: JSONEncodable, Sendable {
    public init() {}
    public var json: JSON { .null }
}
