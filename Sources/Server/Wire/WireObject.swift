import JSON
import Model

/// Objects on the wire: `{"id": "Entity/N", ...keys in model order}`.
public enum WireObject {
    /// The object's JSON; with `keys`, only those keys (still in model order) after the id.
    public static func json(_ id: ObjectID, _ values: Snapshot, entity: Entity, keys: Set<String>? = nil) -> JSON {
        var o = JSONObject()
        o["id"] = .string(id.description)
        append(values, entity: entity, keys: keys, to: &o)
        return .object(o)
    }

    /// Values by key without the id (`context/changedValues`, `context/committedValues`); a key
    /// the snapshot lacks is left out.
    public static func values(_ values: Snapshot, entity: Entity, keys: Set<String>? = nil) -> JSON {
        var o = JSONObject()
        append(values, entity: entity, keys: keys.map { $0.intersection(values.keys) } ?? Set(values.keys), to: &o)
        return .object(o)
    }

    /// The bytes `JSONWriter.write(json(id, values, entity:keys:))` writes, without making
    /// the object's tree (a controller's notifications carry one per changed row).
    public static func write(
        _ id: ObjectID, _ values: Snapshot, entity: Entity, keys: Set<String>? = nil, to writer: inout JSONWriter
    ) {
        writer.writeRaw("{\"id\":")
        writer.write(id: id)
        forEachMember(values, entity: entity, keys: keys) { name, value in
            writer.writeRaw(",")
            writer.write(string: name)
            writer.writeRaw(":")
            writer.write(value)
        }
        writer.writeRaw("}")
    }

    /// The keys in model order: attributes, then relationships.
    private static func append(_ values: Snapshot, entity: Entity, keys: Set<String>?, to o: inout JSONObject) {
        forEachMember(values, entity: entity, keys: keys) { name, value in o[name] = value }
    }

    /// Each key `keys` lets through (all without it) in model order, attributes then
    /// relationships, with its value's JSON (a missing value as the model's empty one).
    private static func forEachMember(
        _ values: Snapshot, entity: Entity, keys: Set<String>?, _ body: (String, JSON) -> Void
    ) {
        for a in entity.attributes where keys?.contains(a.name) ?? true {
            body(a.name, WireValue.json(values[a.name] ?? .null))
        }
        for r in entity.relationships where keys?.contains(r.name) ?? true {
            body(r.name, WireValue.json(values[r.name] ?? (r.toMany ? .objects([]) : .null)))
        }
    }

    /// Checks a key projection against the entity: `unknownKey` for a key it lacks.
    public static func projection(_ keys: [String]?, entity: Entity) throws(EngineError) -> Set<String>? {
        guard let keys else { return nil }
        for key in keys where entity.key(key) == nil {
            throw EngineError(
                .unknownKey, "\(entity.name) has no key \(key)",
                [("entity", .string(entity.name)), ("key", .string(key))])
        }
        return Set(keys)
    }
}

extension JSONWriter {
    /// An id as its JSON string, `"Entity/N"`, without making the text first. Escaping goes
    /// byte by byte, so the entity escaped and the rest appended is the whole text escaped.
    mutating func write(id: ObjectID) {
        write(string: id.entity)
        bytes.removeLast()
        bytes.append(UInt8(ascii: "/"))
        write(integer: id.number)
        bytes.append(UInt8(ascii: "\""))
    }
}
