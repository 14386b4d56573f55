import JSON

/// A JSON Schema in the subset the OpenRPC document uses (protocol.md §14), and the rule
/// ParamReader checks a param's value against: one declaration says both, so the document
/// states what fetchd refuses. Built only through these constructors, so members always come
/// in the same order and the document is byte-for-byte stable.
public struct Schema: Equatable, Sendable {
    public let json: JSONObject
    /// The rule in one shared box: a schema is copied at every param read (a component looked
    /// up, a member's schema), and a copy of the rule's dozen fields cost a retain and a
    /// release each.
    private let box: RuleBox
    var rule: Rule {
        _read { yield box.rule }
    }

    init(_ json: JSONObject, _ rule: Rule) {
        self.json = json
        self.box = RuleBox(rule)
    }

    public static func == (a: Schema, b: Schema) -> Bool { a.json == b.json }

    /// `{}`: any JSON value.
    public static let any = Schema([:], Rule())
    public static let string = type("string")
    public static let integer = type("integer")
    public static let number = type("number")
    public static let boolean = type("boolean")
    public static let null = type("null")

    public static func type(_ name: String) -> Schema { Schema(["type": .string(name)], Rule(types: [name])) }

    /// One of several JSON types (`["integer", "null"]`).
    public static func types(_ names: String...) -> Schema {
        Schema(["type": .array(names.map(JSON.string))], Rule(types: names))
    }

    public static func array(_ items: Schema) -> Schema {
        var rule = Rule(types: ["array"])
        rule.items = [items]
        return Schema(["type": "array", "items": .object(items.json)], rule)
    }

    /// `items` for a schema of several types, one of them array.
    public func items(_ items: Schema) -> Schema {
        var r = rule
        r.items = [items]
        return adding("items", .object(items.json), r)
    }

    public static func strings(_ values: [String]) -> Schema {
        var rule = Rule(types: ["string"])
        rule.values = values.map(JSON.string)
        return Schema(["type": "string", "enum": .array(values.map(JSON.string))], rule)
    }

    /// The raw values of a Swift enum, in declaration order.
    public static func cases<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> Schema where E.RawValue == String {
        strings(E.allCases.map(\.rawValue))
    }

    public static func const(_ value: JSON) -> Schema {
        var rule = Rule()
        rule.constant = value
        rule.nullable = value == .null
        return Schema(["const": value], rule)
    }

    public static func ref(_ component: String) -> Schema {
        var rule = Rule()
        rule.ref = component
        rule.nullable = false
        return Schema(["$ref": .string("#/components/schemas/\(component)")], rule)
    }

    public static func oneOf(_ choices: Schema...) -> Schema {
        var rule = Rule()
        rule.choices = choices
        rule.nullable = choices.contains { $0.rule.nullable }
        return Schema(["oneOf": .array(choices.map { .object($0.json) })], rule)
    }

    /// An object with these properties in this order; `additional`: false (closed), nil (open)
    /// or a schema every other member must satisfy.
    public static func object(
        _ properties: [(String, Schema)], required: [String] = [],
        additional: Schema? = nil, closed: Bool = false
    ) -> Schema {
        var o: JSONObject = ["type": "object"]
        var rule = Rule(types: ["object"])
        rule.properties = properties
        rule.required = Set(required)
        if !properties.isEmpty { o["properties"] = .object(JSONObject(properties.map { ($0.0, .object($0.1.json)) })) }
        if !required.isEmpty { o["required"] = .array(required.map(JSON.string)) }
        if let additional {
            o["additionalProperties"] = .object(additional.json)
            if !additional.json.isEmpty { rule.others = .each(additional) }
        } else if closed {
            o["additionalProperties"] = false
            rule.others = .refused
        }
        return Schema(o, rule)
    }

    /// An object whose members are these params (their descriptions kept); closed unless
    /// `additional` says what other members must be, or `closed` is false.
    public static func object(members: [any ParamKey], additional: Schema? = nil, closed: Bool = true) -> Schema {
        object(
            members.map { ($0.spec.name, $0.spec.described) },
            required: members.filter(\.spec.required).map(\.spec.name),
            additional: additional, closed: closed)
    }

    /// The same schema with a `description` (or `title`) first.
    public func describe(_ text: String) -> Schema { prefixed("description", text) }
    public func titled(_ text: String) -> Schema { prefixed("title", text) }

    private func prefixed(_ key: String, _ text: String) -> Schema {
        Schema(JSONObject([(key, .string(text))] + json.entries.map { ($0.key, $0.value) }), rule)
    }

    // MARK: Rules beyond the JSON type

    /// `minimum`. `checkedBy: .engine`: stated for clients, but refused by the engine with the
    /// error kind protocol.md gives (so ParamReader lets it through).
    public func minimum(_ n: Int64, checkedBy checker: Checker = .reader) -> Schema {
        var r = rule
        if checker == .reader { r.minimum = n }
        return adding("minimum", .integer(n), r)
    }

    /// `minLength`.
    public func minLength(_ n: Int) -> Schema {
        var r = rule
        r.minLength = n
        return adding("minLength", .integer(Int64(n)), r)
    }

    /// `minItems` and `maxItems`: exactly `n` items.
    public func count(_ n: Int) -> Schema {
        var r = rule
        r.itemCount = n
        return Schema(json.adding([("minItems", .integer(Int64(n))), ("maxItems", .integer(Int64(n)))]), r)
    }

    /// `uniqueItems`: stated for clients; only the engine refuses repeats (a batch's rejected
    /// rows), so ParamReader never checks it.
    public func uniqueItems() -> Schema { adding("uniqueItems", true, rule) }

    /// `pattern`: text the regular expression matches; `matches` is fetchd's own reading of it,
    /// which accepts at least what the pattern does, and `name` is what error data calls it.
    public func pattern(_ regex: String, _ name: String, _ matches: @escaping @Sendable (String) -> Bool) -> Schema {
        var r = rule
        r.text = TextRule(name: name, matches: matches)
        return adding("pattern", .string(regex), r)
    }

    /// `format` (e.g. `date-time`), with fetchd's check and what error data calls it.
    public func format(_ format: String, _ name: String, _ matches: @escaping @Sendable (String) -> Bool) -> Schema {
        var r = rule
        r.text = TextRule(name: name, matches: matches)
        return adding("format", .string(format), r)
    }

    /// `not: {type: null}`: any value but null.
    public var notNull: Schema {
        var r = rule
        r.notNull = true
        r.nullable = false
        return adding("not", ["type": "null"], r)
    }

    /// `not: {properties: {other: {const: value}}, required: [other, member]}`: an object that
    /// may not have `member` when `other` is `value`.
    public func excluding(_ member: String, when other: String, is value: JSON) -> Schema {
        var r = rule
        r.exclusion = Exclusion(member: member, other: other, value: value)
        let not: JSONObject = [
            "properties": .object([other: .object(["const": value])]),
            "required": .array([.string(other), .string(member)]),
        ]
        return adding("not", .object(not), r)
    }

    /// Stated for clients, read and refused by its own decoder with the error kind protocol.md
    /// gives (a store/open model: invalidModel), so ParamReader takes any value.
    public func checkedBy(_ checker: Checker) -> Schema {
        var r = rule
        r.skipped = checker == .engine
        return Schema(json, r)
    }

    private func adding(_ key: String, _ value: JSON, _ rule: Rule) -> Schema {
        Schema(json.adding([(key, value)]), rule)
    }
}

/// Who refuses a value breaking a rule: ParamReader (-32602 invalidParams naming the param),
/// or the engine and the decoders behind it, with the error kind protocol.md documents.
public enum Checker: Sendable {
    case reader
    case engine
}

extension JSONObject {
    fileprivate func adding(_ members: [(String, JSON)]) -> JSONObject {
        var o = self
        for (key, value) in members { o[key] = value }
        return o
    }
}

private final class RuleBox: Sendable {
    let rule: Rule
    init(_ rule: Rule) { self.rule = rule }
}

/// What a schema lets through, as ParamReader checks it.
struct Rule: Sendable {
    enum Others: Sendable {
        case allowed
        case refused
        indirect case each(Schema)
    }

    /// JSON Schema type names; nil: any type.
    var types: [String]?
    var values: [JSON]?
    var constant: JSON?
    var minimum: Int64?
    var minLength: Int?
    var itemCount: Int?
    var text: TextRule?
    var notNull = false
    var items: [Schema] = []
    var properties: [(String, Schema)] = []
    var required: Set<String> = []
    var others = Others.allowed
    var choices: [Schema] = []
    var ref: String?
    var exclusion: Exclusion?
    /// Checked by the engine: any value passes ParamReader.
    var skipped = false
    /// Whether `null` is a value here (else a null member or param counts as absent).
    var nullable: Bool

    init(types: [String]? = nil) {
        self.types = types
        nullable = types?.contains("null") ?? true
    }

    /// Whether the rule asks nothing beyond the JSON type (or nothing at all).
    private var typeOnly: Bool {
        guard values == nil, constant == nil, minimum == nil, minLength == nil, itemCount == nil, text == nil,
            !notNull, properties.isEmpty, choices.isEmpty, ref == nil, exclusion == nil,
            items.allSatisfy({ $0.rule.acceptsAll })
        else { return false }
        if case .allowed = others { return true }
        return false
    }

    /// `{}`: any value passes (a batch's row values are not looked at one by one).
    var acceptsAll: Bool { skipped || (types == nil && typeOnly) }

    /// The one JSON type this rule asks for, when it asks nothing else (items checked in a loop).
    var onlyType: String? {
        guard !skipped, let types, types.count == 1, typeOnly else { return nil }
        return types[0]
    }
}

struct TextRule: Sendable {
    let name: String
    let matches: @Sendable (String) -> Bool
}

struct Exclusion: Sendable {
    let member: String
    let other: String
    let value: JSON
}

extension ParamSpec {
    /// The schema with the param's description, as an object member lists it.
    var described: Schema { description.map(schema.describe) ?? schema }
}
