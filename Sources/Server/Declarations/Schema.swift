import JSON

/// A JSON Schema in the subset the OpenRPC document uses (see protocol.md §14): `type`,
/// `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `oneOf`, `$ref`,
/// `description`, `title`. Built only through these constructors, so members always come in
/// the same order and the document is byte-for-byte stable.
public struct Schema: Equatable, Sendable {
    public let json: JSONObject

    init(_ json: JSONObject) { self.json = json }

    /// `{}`: any JSON value.
    public static let any = Schema([:])
    public static let string = type("string")
    public static let integer = type("integer")
    public static let number = type("number")
    public static let boolean = type("boolean")
    public static let null = type("null")

    public static func type(_ name: String) -> Schema { Schema(["type": .string(name)]) }

    /// One of several JSON types (`["integer", "null"]`).
    public static func types(_ names: String...) -> Schema { Schema(["type": .array(names.map(JSON.string))]) }

    public static func array(_ items: Schema) -> Schema { Schema(["type": "array", "items": .object(items.json)]) }

    public static func strings(_ values: [String]) -> Schema {
        Schema(["type": "string", "enum": .array(values.map(JSON.string))])
    }

    public static func const(_ value: JSON) -> Schema { Schema(["const": value]) }

    public static func ref(_ component: String) -> Schema {
        Schema(["$ref": .string("#/components/schemas/\(component)")])
    }

    public static func oneOf(_ choices: Schema...) -> Schema {
        Schema(["oneOf": .array(choices.map { .object($0.json) })])
    }

    /// An object with these properties in this order; `additional`: false (closed), nil (open)
    /// or a schema every other member must satisfy.
    public static func object(
        _ properties: [(String, Schema)], required: [String] = [],
        additional: Schema? = nil, closed: Bool = false
    ) -> Schema {
        var o: JSONObject = ["type": "object"]
        if !properties.isEmpty { o["properties"] = .object(JSONObject(properties.map { ($0.0, .object($0.1.json)) })) }
        if !required.isEmpty { o["required"] = .array(required.map(JSON.string)) }
        if let additional {
            o["additionalProperties"] = .object(additional.json)
        } else if closed {
            o["additionalProperties"] = false
        }
        return Schema(o)
    }

    /// The same schema with a `description` (or `title`) first.
    public func describe(_ text: String) -> Schema { prefixed("description", text) }
    public func titled(_ text: String) -> Schema { prefixed("title", text) }

    private func prefixed(_ key: String, _ text: String) -> Schema {
        Schema(JSONObject([(key, .string(text))] + json.entries.map { ($0.key, $0.value) }))
    }
}
