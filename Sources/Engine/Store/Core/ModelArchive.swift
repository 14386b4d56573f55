import Model

/// The model as stored in the metadata table: one line per entity, attribute and
/// relationship, fields separated by tabs. Plain text (not JSON) because the engine does not
/// depend on the JSON module, and a line format is easy to read with the sqlite3 shell.
enum ModelArchive {
    static func encode(_ model: ObjectModel) -> String {
        var lines: [String] = []
        for e in model.entities {
            lines.append(join(["E", e.name]))
            for a in e.attributes {
                lines.append(
                    join([
                        "A", a.name, a.type.rawValue, flag(a.optional), flag(a.indexed),
                        a.defaultValue.map(encodeDefault) ?? "-",
                    ]))
            }
            for r in e.relationships {
                lines.append(
                    join([
                        "R", r.name, r.destination, flag(r.toMany), r.inverse, r.deleteRule.rawValue,
                        flag(r.optional),
                    ]))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func decode(_ text: String) -> ObjectModel? {
        var entities: [Entity] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map { unescape(String($0)) }
            switch (f.first, f.count) {
            case ("E", 2):
                entities.append(Entity(name: f[1], attributes: []))
            case ("A", 6):
                guard !entities.isEmpty, let type = AttributeType(rawValue: f[2]) else { return nil }
                var d: Value? = nil
                if f[5] != "-" {
                    guard let v = decodeDefault(f[5], type) else { return nil }
                    d = v
                }
                entities[entities.count - 1].attributes.append(
                    Attribute(name: f[1], type: type, optional: f[3] == "1", defaultValue: d, indexed: f[4] == "1"))
            case ("R", 7):
                guard !entities.isEmpty, let rule = DeleteRule(rawValue: f[5]) else { return nil }
                entities[entities.count - 1].relationships.append(
                    Relationship(
                        name: f[1], destination: f[2], toMany: f[3] == "1", inverse: f[4], deleteRule: rule,
                        optional: f[6] == "1"))
            default:
                return nil
            }
        }
        return ObjectModel(entities: entities)
    }

    private static func flag(_ b: Bool) -> String { b ? "1" : "0" }
    private static func join(_ fields: [String]) -> String { fields.map(escape).joined(separator: "\t") }

    private static func encodeDefault(_ v: Value) -> String {
        switch v {
        case .null: return "n"
        case .string(let s): return "s" + s
        case .integer(let i): return "i\(i)"
        case .double(let d): return "d\(d)"
        case .bool(let b): return b ? "b1" : "b0"
        case .date(let t): return "t\(t)"
        case .binary(let bytes):
            return "x" + bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
        case .uuid(let u): return "u" + u
        case .object, .objects: return "n"
        }
    }

    private static func decodeDefault(_ text: String, _ type: AttributeType) -> Value? {
        guard let tag = text.first else { return nil }
        let body = String(text.dropFirst())
        switch tag {
        case "n": return .null
        case "s": return .string(body)
        case "i": return Int64(body).map(Value.integer)
        case "d": return Double(body).map(Value.double)
        case "b": return .bool(body == "1")
        case "t": return Double(body).map(Value.date)
        case "u": return .uuid(body)
        case "x":
            let digits = Array(body.utf8)
            guard digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            var i = 0
            while i < digits.count {
                guard let b = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(b)
                i += 2
            }
            return .binary(bytes)
        default: return nil
        }
    }

    private static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        return out
    }

    private static func unescape(_ s: String) -> String {
        guard s.contains("\\") else { return s }
        var out = ""
        var escaping = false
        for c in s {
            if escaping {
                switch c {
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                default: out.append(c)
                }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                out.append(c)
            }
        }
        return out
    }
}
