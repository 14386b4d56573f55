import JSON

/// Anything that can say what it looks like on the wire (results, notification params).
public protocol JSONEncodable {
    var json: JSON { get }
}

extension JSON: JSONEncodable { public var json: JSON { self } }
extension JSONObject: JSONEncodable { public var json: JSON { .object(self) } }
