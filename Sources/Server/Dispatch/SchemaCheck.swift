import JSON
import JSONRPC

/// The one place a param's value is checked against its schema: each failure is -32602
/// `{kind: "invalidParams", param, expected, got}` naming the param by path (`request.entity`,
/// `ids[2]`). Of several problems the first found is reported: inside an object, unknown
/// members, then the listed ones in order, then the others.
extension Schema {
    func check(_ value: JSON, at path: String) throws(RPCError) {
        if rule.skipped { return }
        if let ref = rule.ref { return try Components.schema(ref).check(value, at: path) }
        if !rule.choices.isEmpty { try checkChoices(value, at: path) }
        if let types = rule.types, !types.contains(where: { Self.matches($0, value) }) {
            throw mismatch(path, expected, got: value.typeName)
        }
        if rule.notNull, value == .null { throw mismatch(path, expected, got: "null") }
        if let values = rule.values, !values.contains(value) {
            throw mismatch(path, values.map { $0.stringValue ?? $0.serializedString }.joined(separator: " | "), value)
        }
        if let constant = rule.constant, constant != value { throw mismatch(path, constant.serializedString, value) }
        switch value {
        case .integer, .double:
            if let minimum = rule.minimum, Self.number(value) < Double(minimum) {
                let wanted =
                    minimum == 0 ? "a count >= 0" : minimum == 1 ? "a positive integer" : "an integer >= \(minimum)"
                throw mismatch(path, wanted, value)
            }
        case .string(let text):
            if let n = rule.minLength, text.unicodeScalars.count < n {
                throw mismatch(path, n == 1 ? "a non-empty string" : "a string of at least \(n) characters", value)
            }
            if let t = rule.text, !t.matches(text) { throw mismatch(path, t.name, value) }
        case .array(let items):
            if let n = rule.itemCount, items.count != n {
                throw mismatch(path, "\(n) items", got: items.count == 1 ? "1 item" : "\(items.count) items")
            }
            if let schema = rule.items.first, !schema.rule.acceptsAll {
                try schema.resolved.checkItems(items, at: path)
            }
        case .object(let o):
            try checkMembers(o, at: path)
        default:
            break
        }
    }

    /// What error data says this schema wants when a value is missing or of the wrong type.
    var expected: String {
        if let ref = rule.ref { return Components.schema(ref).expected }
        if !rule.choices.isEmpty { return Self.list(rule.choices.map(\.expected)) }
        if let types = rule.types { return Self.list(types) }
        return "a value"
    }

    /// Whether `null` is a value of this schema rather than an absent member.
    var admitsNull: Bool { rule.nullable }

    private var resolved: Schema { rule.ref.map(Components.schema) ?? self }

    private func checkItems(_ items: [JSON], at path: String) throws(RPCError) {
        // Items that only need a type (`[string]`, `[[any]]`) are checked without a call each.
        if let type = rule.onlyType {
            for (i, item) in items.enumerated() where !Self.matches(type, item) {
                throw mismatch("\(path)[\(i)]", type, got: item.typeName)
            }
            return
        }
        for (i, item) in items.enumerated() {
            // The item's path is made only for an item that fails: checked again with it, the
            // same check throws the same error naming it (10k ids: 0.9k instructions each).
            do throws(RPCError) { try check(item, at: path) } catch {
                try check(item, at: "\(path)[\(i)]")
                throw error
            }
        }
    }

    private func checkMembers(_ o: JSONObject, at path: String) throws(RPCError) {
        if case .refused = rule.others {
            for (key, _) in o where !rule.properties.contains(where: { $0.0 == key }) {
                let names = rule.properties.map(\.0)
                let wanted = names.count == 1 ? names[0] : "one of " + names.joined(separator: ", ")
                throw mismatch("\(path).\(key)", wanted, got: "unknown key")
            }
        }
        for (name, schema) in rule.properties {
            let value = o[name]
            if value == nil || (value == .null && !schema.admitsNull) {
                if rule.required.contains(name) {
                    throw mismatch("\(path).\(name)", schema.expected, got: value == nil ? "missing" : "null")
                }
                continue
            }
            try schema.check(value!, at: "\(path).\(name)")
        }
        if let x = rule.exclusion, o[x.other] == x.value, let v = o[x.member], v != .null {
            throw mismatch(
                "\(path).\(x.member)", "no \(x.member) with \(x.other): \(x.value.serializedString)", got: x.member)
        }
        if case .each(let schema) = rule.others {
            for (key, value) in o where !rule.properties.contains(where: { $0.0 == key }) {
                try schema.check(value, at: "\(path).\(key)")
            }
        }
    }

    /// oneOf: the one choice the value's JSON type fits decides (the document's choices differ
    /// by type); a value no choice's type fits names every choice.
    private func checkChoices(_ value: JSON, at path: String) throws(RPCError) {
        var firstError: RPCError?
        for choice in rule.choices where choice.fitsType(value) {
            do throws(RPCError) {
                try choice.check(value, at: path)
                return
            } catch {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? mismatch(path, expected, got: value.typeName)
    }

    private func fitsType(_ value: JSON) -> Bool {
        let resolved = self.resolved
        if !resolved.rule.choices.isEmpty { return resolved.rule.choices.contains { $0.fitsType(value) } }
        if let c = resolved.rule.constant { return c.typeName == value.typeName }
        guard let types = resolved.rule.types else { return true }
        return types.contains { Self.matches($0, value) }
    }

    static func matches(_ type: String, _ value: JSON) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("object", .object), ("array", .array), ("null", .null),
            ("integer", .integer), ("number", .integer), ("number", .double):
            return true
        // An integral number such as 2.0 is an integer: some clients cannot tell them apart.
        case ("integer", .double(let d)): return d.rounded() == d && abs(d) < 9.2e18
        default: return false
        }
    }

    private static func number(_ value: JSON) -> Double {
        switch value {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: return 0
        }
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ names: [String]) -> String {
        var unique: [String] = []
        for n in names where !unique.contains(n) { unique.append(n) }
        guard unique.count > 1 else { return unique.first ?? "a value" }
        return unique.dropLast().joined(separator: ", ") + " or " + unique.last!
    }

    private func mismatch(_ path: String, _ expected: String, _ value: JSON) -> RPCError {
        .invalidParams(param: path, expected: expected, got: value.serializedString)
    }

    private func mismatch(_ path: String, _ expected: String, got: String) -> RPCError {
        .invalidParams(param: path, expected: expected, got: got)
    }
}
