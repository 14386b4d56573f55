import Foundation
import JSON
import Server

/// Checks JSON against the document's schema subset (protocol.md §14), resolving `$ref` in
/// Components, as a client's validator would; and makes a value each schema accepts. Written
/// from JSON Schema's rules, apart from fetchd's own checker (Schema.check), so the two can
/// be held against each other.
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
        if let not = schema["not"]?.objectValue, problem(value, not, at: path) == nil {
            return "\(path): \(value) fits not \(not)"
        }
        if let minimum = number(schema["minimum"]), let n = number(value), n < minimum {
            return "\(path): \(n) < \(minimum)"
        }
        if case .string(let text) = value {
            if let n = number(schema["minLength"]), Double(text.unicodeScalars.count) < n {
                return "\(path): shorter than \(n)"
            }
            if let pattern = schema["pattern"]?.stringValue, !matches(pattern, text) {
                return "\(path): \(text) does not match \(pattern)"
            }
            if schema["format"] == "date-time", !isDateTime(text) { return "\(path): \(text) is not a date-time" }
        }
        if case .array(let items) = value {
            if let n = number(schema["minItems"]), Double(items.count) < n { return "\(path): fewer items than \(n)" }
            if let n = number(schema["maxItems"]), Double(items.count) > n { return "\(path): more items than \(n)" }
            if schema["uniqueItems"] == true, Set(items.map(\.serializedString)).count != items.count {
                return "\(path): repeated items"
            }
        }
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

    static func number(_ value: JSON?) -> Double? {
        switch value {
        case .integer(let i)?: return Double(i)
        case .double(let d)?: return d
        default: return nil
        }
    }

    /// ECMA-262 patterns as clients run them (NSRegularExpression reads the ones used here alike).
    static func matches(_ pattern: String, _ text: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { fatalError("bad pattern \(pattern)") }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// RFC 3339 `date-time` (JSON Schema's format), days checked against the month.
    static func isDateTime(_ text: String) -> Bool {
        let shape = #"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$"#
        guard let regex = try? NSRegularExpression(pattern: shape),
            let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return false }
        func part(_ i: Int) -> Int? {
            Range(m.range(at: i), in: text).flatMap { Int(text[$0]) }
        }
        guard let y = part(1), let mo = part(2), let d = part(3), let h = part(4), let mi = part(5), let s = part(6)
        else { return false }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(mo), (1...days[mo - 1]).contains(d), h < 24, mi < 60, s <= 60 else { return false }
        if let oh = part(9), let om = part(10), oh >= 24 || om >= 60 { return false }
        return true
    }

    /// Strings for the patterns the document uses, each in what fetchd's fixtures name.
    static let patternSamples: [String: String] = [
        "^.+/0*[1-9][0-9]{0,17}$": "x/1",
        "^postgres(ql)?://": "postgresql:///fetchd_test",
    ]

    /// A small value the schema accepts (required members only); strings are `x`, ids `x/1`.
    static func sample(_ raw: JSONObject) -> JSON {
        if raw["$ref"] == "#/components/schemas/ObjectID" { return "x/1" }
        let schema = resolve(raw)
        if let values = schema["enum"]?.arrayValue { return values[0] }
        if let pattern = schema["pattern"]?.stringValue {
            guard let text = patternSamples[pattern] else { fatalError("no sample for pattern \(pattern)") }
            return .string(text)
        }
        if let c = schema["const"] { return c }
        if let choices = schema["oneOf"]?.arrayValue { return sample(choices[0].objectValue!) }
        let type = schema["type"]?.stringValue ?? schema["type"]?.arrayValue?.first?.stringValue
        switch type {
        case "string": return schema["format"] == "date-time" ? "2024-05-01T12:00:00Z" : "x"
        case "integer", "number": return .integer(Int64(number(schema["minimum"]) ?? 0))
        case "boolean": return true
        case "null": return .null
        case "array":
            let count = Int(number(schema["minItems"]) ?? 1)
            return .array(Array(repeating: sample(schema["items"]?.objectValue ?? [:]), count: count))
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
