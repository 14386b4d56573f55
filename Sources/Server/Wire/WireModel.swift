import JSON
import Model

/// The wire's model (`store/open` params, `--model` files) to an `ObjectModel`, then the
/// engine's own validation. Every problem is `invalidModel {path, reason}`, the path written
/// as in the JSON (`entities[0].attributes.age.type`).
///
///     {"entities": [{"name": "Contact",
///                    "attributes": {"name": {"type": "string"}, "age": {"type": "integer", "default": 0}},
///                    "relationships": {"group": {"destination": "Group", "inverse": "members"}}}]}
public enum WireModel {
    public static func decode(_ json: JSON) throws(EngineError) -> ObjectModel {
        let root = try object(json, "model")
        try onlyKeys(root, ["entities"], "model")
        guard let list = root["entities"] else { throw invalid("entities", "missing") }
        guard case .array(let items) = list else { throw invalid("entities", "expected an array") }
        var entities: [Entity] = []
        for (i, item) in items.enumerated() {
            entities.append(try entity(item, "entities[\(i)]"))
        }
        let model = ObjectModel(entities: entities)
        try model.validate()
        return model
    }

    private static func entity(_ json: JSON, _ path: String) throws(EngineError) -> Entity {
        let o = try object(json, path)
        try onlyKeys(o, ["name", "attributes", "relationships"], path)
        let name = try string(o["name"], "\(path).name")
        var attributes: [Attribute] = []
        if let a = o["attributes"], a != .null {
            for (key, spec) in try object(a, "\(path).attributes") {
                attributes.append(try attribute(key, spec, "\(path).attributes.\(key)"))
            }
        }
        var relationships: [Relationship] = []
        if let r = o["relationships"], r != .null {
            for (key, spec) in try object(r, "\(path).relationships") {
                relationships.append(try relationship(key, spec, "\(path).relationships.\(key)"))
            }
        }
        return Entity(name: name, attributes: attributes, relationships: relationships)
    }

    private static func attribute(_ name: String, _ json: JSON, _ path: String) throws(EngineError) -> Attribute {
        let o = try object(json, path)
        try onlyKeys(o, ["type", "optional", "default", "indexed"], path)
        let typeName = try string(o["type"], "\(path).type")
        guard let type = AttributeType(rawValue: typeName) else {
            throw invalid(
                "\(path).type",
                "unknown type \(typeName) (expected one of \(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        var defaultValue: Value?
        if let d = o["default"], d != .null {
            do { defaultValue = try WireValue.value(d, as: type) } catch {
                throw invalid("\(path).default", "default is not a valid \(type.rawValue)")
            }
        }
        return Attribute(
            name: name, type: type, optional: try bool(o["optional"], "\(path).optional", default: false),
            defaultValue: defaultValue, indexed: try bool(o["indexed"], "\(path).indexed", default: false))
    }

    private static func relationship(_ name: String, _ json: JSON, _ path: String) throws(EngineError) -> Relationship {
        let o = try object(json, path)
        try onlyKeys(o, ["destination", "toMany", "inverse", "deleteRule", "optional"], path)
        let destination = try string(o["destination"], "\(path).destination")
        guard o["inverse"] != nil && o["inverse"] != .null else {
            throw invalid("\(path).inverse", "missing (every relationship needs an inverse)")
        }
        let inverse = try string(o["inverse"], "\(path).inverse")
        var rule = DeleteRule.nullify
        if let r = o["deleteRule"], r != .null {
            let text = try string(r, "\(path).deleteRule")
            guard let parsed = DeleteRule(rawValue: text) else {
                throw invalid(
                    "\(path).deleteRule",
                    "unknown delete rule \(text) (expected one of \(DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            rule = parsed
        }
        return Relationship(
            name: name, destination: destination, toMany: try bool(o["toMany"], "\(path).toMany", default: false),
            inverse: inverse, deleteRule: rule, optional: try bool(o["optional"], "\(path).optional", default: true))
    }

    // MARK: Shapes

    private static func object(_ json: JSON, _ path: String) throws(EngineError) -> JSONObject {
        guard case .object(let o) = json else { throw invalid(path, "expected an object, got \(json.typeName)") }
        return o
    }

    private static func string(_ json: JSON?, _ path: String) throws(EngineError) -> String {
        guard let json else { throw invalid(path, "missing") }
        guard case .string(let s) = json else { throw invalid(path, "expected a string, got \(json.typeName)") }
        return s
    }

    private static func bool(_ json: JSON?, _ path: String, default value: Bool) throws(EngineError) -> Bool {
        switch json {
        case nil, .null?: return value
        case .bool(let b)?: return b
        case let other?: throw invalid(path, "expected a boolean, got \(other.typeName)")
        }
    }

    private static func onlyKeys(_ o: JSONObject, _ allowed: Set<String>, _ path: String) throws(EngineError) {
        for key in o.keys where !allowed.contains(key) {
            throw invalid(path == "model" ? key : "\(path).\(key)", "unknown field \(key)")
        }
    }

    private static func invalid(_ path: String, _ reason: String) -> EngineError {
        EngineError(
            .invalidModel, "invalid model at \(path): \(reason)",
            [("path", .string(path)), ("reason", .string(reason))])
    }
}
