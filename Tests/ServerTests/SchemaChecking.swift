import JSON
import Server

/// Checks JSON against the document's schema subset (Schema.swift), resolving `$ref` in
/// Components; and makes a value each schema accepts. Test-only: fetchd never validates by
/// schema, its decoders do (these tests keep the two in step).
enum SchemaChecking {
    static let components: [String: JSONObject] = Dictionary(
        uniqueKeysWithValues: Components.all.map { ($0.0, $0.1.json) })

    static func resolve(_ schema: JSONObject) -> JSONObject {
        guard let ref = schema["$ref"]?.stringValue else { return schema }
        let name = String(ref.dropFirst("#/components/schemas/".count))
        guard let target = components[name] else { fatalError("unresolved \(ref)") }
        return resolve(target)
    }

    static func typeMatches(_ type: String, _ value: JSON) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("integer", .integer), ("number", .integer), ("number", .double):
            return true
        case ("integer", .double(let d)): return d.rounded() == d
        default: return false
        }
    }

    /// Where `value` breaks `schema` (a path and a reason), or nil.
    static func problem(_ value: JSON, _ raw: JSONObject, at path: String = "$") -> String? {
        let schema = resolve(raw)
        if let type = schema["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue!]
            if !names.contains(where: { typeMatches($0, value) }) {
                return "\(path): \(value.typeName) is not \(names)"
            }
        }
        if let values = schema["enum"]?.arrayValue, !values.contains(value) { return "\(path): \(value) not in enum" }
        if let c = schema["const"], c != value { return "\(path): \(value) is not \(c)" }
        if let choices = schema["oneOf"]?.arrayValue {
            let fits = choices.filter { problem(value, $0.objectValue!, at: path) == nil }.count
            if fits != 1 { return "\(path): fits \(fits) of oneOf" }
        }
        if case .array(let items) = value, let itemSchema = schema["items"]?.objectValue {
            for (i, item) in items.enumerated() {
                if let p = problem(item, itemSchema, at: "\(path)[\(i)]") { return p }
            }
        }
        if case .object(let o) = value {
            let properties = schema["properties"]?.objectValue ?? [:]
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where o[name] == nil {
                return "\(path).\(name): missing"
            }
            for (key, member) in o {
                if let s = properties[key]?.objectValue {
                    if let p = problem(member, s, at: "\(path).\(key)") { return p }
                } else if schema["additionalProperties"] == .bool(false) {
                    return "\(path).\(key): not allowed"
                } else if let s = schema["additionalProperties"]?.objectValue,
                    let p = problem(member, s, at: "\(path).\(key)")
                {
                    return p
                }
            }
        }
        return nil
    }

    /// A small value the schema accepts (required members only); strings are `x`, ids `x/1`.
    static func sample(_ raw: JSONObject) -> JSON {
        if raw["$ref"] == "#/components/schemas/ObjectID" { return "x/1" }
        let schema = resolve(raw)
        if let values = schema["enum"]?.arrayValue { return values[0] }
        if let c = schema["const"] { return c }
        if let choices = schema["oneOf"]?.arrayValue { return sample(choices[0].objectValue!) }
        let type = schema["type"]?.stringValue ?? schema["type"]?.arrayValue?.first?.stringValue
        switch type {
        case "string": return "x"
        case "integer", "number": return 0
        case "boolean": return true
        case "null": return .null
        // Two items: an IndexPath has exactly two (which the subset cannot say).
        case "array": return .array(Array(repeating: sample(schema["items"]?.objectValue ?? [:]), count: 2))
        case "object":
            let properties = schema["properties"]?.objectValue ?? [:]
            let required = schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return .object(JSONObject(required.map { ($0, sample(properties[$0]?.objectValue ?? [:])) }))
        default: return "any"
        }
    }

    /// A value of a JSON type the schema does not accept, or nil when it accepts any.
    static func mistyped(_ raw: JSONObject) -> JSON? {
        let schema = resolve(raw)
        guard schema["type"] != nil || schema["enum"] != nil else { return nil }
        let candidates: [JSON] = [.bool(true), .integer(7), .string("x"), .array([]), .object([:])]
        return candidates.first { problem($0, schema) != nil }
    }
}
