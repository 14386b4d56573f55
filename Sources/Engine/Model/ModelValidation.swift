/// Checks that a model can be stored and kept consistent, before any table exists.
///
/// Errors are `invalidModel` with `path` (where in the wire model, e.g.
/// `entities[0].relationships.group.inverse`) and `reason`, so a client can point at the line.
extension ObjectModel {
    public func validate() throws(EngineError) {
        var seen: [String: Int] = [:]
        for (i, entity) in entities.enumerated() {
            let at = "entities[\(i)]"
            try Self.checkName(entity.name, path: "\(at).name", entity: true)
            // SQLite table names ignore case, so entity names must differ by more than case.
            if let first = seen[entity.name.lowercased()] {
                throw Self.invalid("\(at).name", "duplicate entity name (same as entities[\(first)], ignoring case)")
            }
            seen[entity.name.lowercased()] = i
        }
        for (i, entity) in entities.enumerated() {
            try validate(entity, at: "entities[\(i)]")
        }
    }

    private func validate(_ entity: Entity, at: String) throws(EngineError) {
        // Attributes and relationships share the table's columns, which ignore case.
        var keys: Set<String> = []
        for a in entity.attributes {
            let path = "\(at).attributes.\(a.name)"
            try Self.checkName(a.name, path: path, entity: false)
            guard keys.insert(a.name.lowercased()).inserted else { throw Self.invalid(path, "duplicate key") }
            if let d = a.defaultValue, !d.isNull, !d.fits(a.type) {
                throw Self.invalid("\(path).default", "default is not a \(a.type.rawValue)")
            }
        }
        for r in entity.relationships {
            let path = "\(at).relationships.\(r.name)"
            try Self.checkName(r.name, path: path, entity: false)
            guard keys.insert(r.name.lowercased()).inserted else { throw Self.invalid(path, "duplicate key") }
            guard let destination = self.entity(r.destination) else {
                throw Self.invalid("\(path).destination", "unknown entity \(r.destination)")
            }
            guard let inverse = destination.relationship(r.inverse) else {
                throw Self.invalid("\(path).inverse", "\(r.destination) has no relationship \(r.inverse)")
            }
            guard inverse.destination == entity.name, inverse.inverse == r.name else {
                throw Self.invalid(
                    "\(path).inverse",
                    "\(r.destination).\(r.inverse) does not point back to \(entity.name).\(r.name)")
            }
            if inverse.name == r.name && inverse.destination == entity.name && r.destination == entity.name {
                throw Self.invalid("\(path).inverse", "a relationship cannot be its own inverse")
            }
        }
    }

    /// Names become SQL identifiers, wire keys and the `Entity` of `Entity/N`.
    private static func checkName(_ name: String, path: String, entity: Bool) throws(EngineError) {
        guard let first = name.unicodeScalars.first else { throw invalid(path, "empty name") }
        let isLetter = ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        let ok =
            isLetter
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
            }
        guard ok else {
            throw invalid(path, "invalid name \(name): use a letter, then letters, digits or _")
        }
        if entity {
            guard !name.lowercased().hasPrefix("sqlite_") else { throw invalid(path, "reserved name \(name)") }
        } else {
            // `id` is the wire object's own key.
            guard name != "id" else { throw invalid(path, "reserved name id") }
        }
    }

    private static func invalid(_ path: String, _ reason: String) -> EngineError {
        EngineError(
            .invalidModel, "invalid model at \(path): \(reason)",
            [("path", .string(path)), ("reason", .string(reason))])
    }
}

extension Value {
    /// Whether the value has the shape of an attribute of `type` (null fits every type).
    public func fits(_ type: AttributeType) -> Bool {
        switch (self, type) {
        case (.null, _), (.string, .string), (.integer, .integer), (.double, .double), (.bool, .boolean),
            (.date, .date), (.binary, .binary), (.uuid, .uuid):
            return true
        default:
            return false
        }
    }
}
