import JSON
import Model

extension WireModel {
    /// The wire form of a model (protocol.md §5), every field written: `decode(encode(m)) == m`.
    public static func encode(_ model: ObjectModel) -> JSON {
        .object(["entities": .array(model.entities.map(entity))])
    }

    private static func entity(_ e: Entity) -> JSON {
        var attributes = JSONObject()
        for a in e.attributes {
            var spec: JSONObject = ["type": .string(a.type.rawValue), "optional": .bool(a.optional)]
            if let d = a.defaultValue { spec["default"] = WireValue.json(d) }
            spec["indexed"] = .bool(a.indexed)
            attributes[a.name] = .object(spec)
        }
        var relationships = JSONObject()
        for r in e.relationships {
            relationships[r.name] = [
                "destination": .string(r.destination), "toMany": .bool(r.toMany), "inverse": .string(r.inverse),
                "deleteRule": .string(r.deleteRule.rawValue), "optional": .bool(r.optional),
            ]
        }
        return ["name": .string(e.name), "attributes": .object(attributes), "relationships": .object(relationships)]
    }
}
