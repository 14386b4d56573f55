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

    /// The keys in model order: attributes, then relationships.
    private static func append(_ values: Snapshot, entity: Entity, keys: Set<String>?, to o: inout JSONObject) {
        for a in entity.attributes where keys?.contains(a.name) ?? true {
            o[a.name] = WireValue.json(values[a.name] ?? .null)
        }
        for r in entity.relationships where keys?.contains(r.name) ?? true {
            o[r.name] = WireValue.json(values[r.name] ?? (r.toMany ? .objects([]) : .null))
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
