import JSON
import Model

/// Values on the wire, typed by the model: dates ISO 8601 text (written in UTC with
/// milliseconds), binary base64, uuid canonical lowercase text, a to-one relationship an id
/// `"Entity/N"` or null, a to-many one an array of ids.
public enum WireValue {
    /// An attribute's value from JSON. Throws `typeMismatch` (wrong JSON type) or
    /// `invalidValue` (right type, unreadable text), without entity and key (the callers add them).
    public static func value(_ json: JSON, as type: AttributeType) throws(EngineError) -> Value {
        if case .null = json { return .null }
        switch (type, json) {
        case (.string, .string(let s)): return .string(s)
        case (.integer, .integer(let i)): return .integer(i)
        case (.integer, .double(let d)) where d.rounded() == d && abs(d) < 9.2e18: return .integer(Int64(d))
        case (.double, .integer(let i)): return .double(Double(i))
        case (.double, .double(let d)): return .double(d)
        case (.boolean, .bool(let b)): return .bool(b)
        case (.date, .string(let s)):
            guard let t = ISO8601.parse(s) else { throw bad(s, "not an ISO 8601 date") }
            return .date(t)
        case (.binary, .string(let s)):
            guard let bytes = Base64.decode(s) else { throw bad(s, "not base64") }
            return .binary(bytes)
        case (.uuid, .string(let s)):
            guard let u = canonicalUUID(s) else { throw bad(s, "not a UUID") }
            return .uuid(u)
        default:
            throw EngineError(
                .typeMismatch, "expected \(expected(type)), got \(json.typeName)",
                [("expected", .string(expected(type))), ("got", .string(json.typeName))])
        }
    }

    /// A relationship's value from JSON: an id or null (to-one), an array of ids (to-many).
    public static func value(_ json: JSON, for relationship: Relationship) throws(EngineError) -> Value {
        if relationship.toMany {
            guard case .array(let items) = json else {
                throw EngineError(
                    .typeMismatch, "expected an array of \(relationship.destination) ids, got \(json.typeName)",
                    [("expected", .string("array of ids")), ("got", .string(json.typeName))])
            }
            var ids: [ObjectID] = []
            for item in items { ids.append(try id(item)) }
            return .objects(ids)
        }
        if json == .null { return .null }
        return .object(try id(json))
    }

    /// `"Entity/N"` to an id; anything else is `typeMismatch` or `invalidValue`.
    public static func id(_ json: JSON) throws(EngineError) -> ObjectID {
        guard case .string(let s) = json else {
            throw EngineError(
                .typeMismatch, "expected an id \"Entity/N\", got \(json.typeName)",
                [("expected", .string("id")), ("got", .string(json.typeName))])
        }
        guard let id = ObjectID(s) else { throw bad(s, "not an id (Entity/N)") }
        return id
    }

    /// An object's values from a JSON object: every key must be in `entity`; errors name
    /// entity and key.
    public static func snapshot(_ object: JSONObject, for entity: Entity) throws(EngineError) -> Snapshot {
        var values: Snapshot = [:]
        for (key, json) in object {
            do throws(EngineError) {
                switch entity.key(key) {
                case nil:
                    throw EngineError(
                        .unknownKey, "\(entity.name) has no key \(key)",
                        [("entity", .string(entity.name)), ("key", .string(key))])
                case .attribute(let a):
                    values[key] = try value(json, as: a.type)
                case .relationship(let r):
                    values[key] = try value(json, for: r)
                }
            } catch  where error.kind == .unknownKey {
                throw error
            } catch {
                var named = error
                named.message = "\(entity.name).\(key): \(error.message)"
                named.details = [("entity", .string(entity.name)), ("key", .string(key))] + error.details
                throw named
            }
        }
        return values
    }

    /// The JSON of a value.
    public static func json(_ value: Value) -> JSON {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .date(let t): return .string(ISO8601.format(t))
        case .binary(let b): return .string(Base64.encode(b))
        case .uuid(let u): return .string(u)
        case .object(let id): return .string(id.description)
        case .objects(let ids): return .array(ids.map { .string($0.description) })
        }
    }

    /// Any JSON value to an untyped engine value (fetch request variables): the predicate
    /// compiler types it by the key it meets.
    public static func untyped(_ json: JSON) -> Value? {
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array, .object: return nil
        }
    }

    static func canonicalUUID(_ text: String) -> String? {
        let chars = Array(text.lowercased().utf8)
        guard chars.count == 36 else { return nil }
        for (i, c) in chars.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                guard c == UInt8(ascii: "-") else { return nil }
            } else {
                guard (c >= 48 && c <= 57) || (c >= 97 && c <= 102) else { return nil }
            }
        }
        return String(decoding: chars, as: UTF8.self)
    }

    private static func expected(_ type: AttributeType) -> String {
        switch type {
        case .string: return "string"
        case .integer: return "integer"
        case .double: return "number"
        case .boolean: return "boolean"
        case .date: return "ISO 8601 date string"
        case .binary: return "base64 string"
        case .uuid: return "UUID string"
        }
    }

    private static func bad(_ text: String, _ reason: String) -> EngineError {
        EngineError(.invalidValue, "\(reason): \(text)", [("value", .string(text)), ("reason", .string(reason))])
    }
}
