/// Checks one key/value pair against the model: the engine's own type check, so a caller
/// that is not the wire (tests, benchmarks) gets the same errors as a client.
extension Entity {
    public enum Key {
        case attribute(Attribute)
        case relationship(Relationship)
    }

    public func key(_ name: String) -> Key? {
        if let a = attribute(name) { return .attribute(a) }
        if let r = relationship(name) { return .relationship(r) }
        return nil
    }

    /// Throws `unknownKey` or `typeMismatch` (naming entity and key). Whether a referenced
    /// object exists is for the context to say; here only its entity is checked.
    public func check(_ key: String, _ value: Value) throws(EngineError) {
        try check(key, self.key(key), value)
    }

    /// `check` with the key already looked up (`kind`: what `key(key)` answers).
    public func check(_ key: String, _ kind: Key?, _ value: Value) throws(EngineError) {
        switch kind {
        case nil:
            throw EngineError(
                .unknownKey, "\(name) has no key \(key)", [("entity", .string(name)), ("key", .string(key))])
        case .attribute(let a):
            guard value.fits(a.type) else { throw mismatch(key, expected: a.type.rawValue) }
        case .relationship(let r):
            switch value {
            case .null where !r.toMany:
                return
            case .object(let id) where !r.toMany:
                guard id.entity == r.destination else { throw wrongEntity(key, id, r) }
            case .objects(let ids) where r.toMany:
                for id in ids where id.entity != r.destination { throw wrongEntity(key, id, r) }
            default:
                throw mismatch(
                    key, expected: r.toMany ? "array of \(r.destination) ids" : "\(r.destination) id or null")
            }
        }
    }

    private func mismatch(_ key: String, expected: String) -> EngineError {
        EngineError(
            .typeMismatch, "\(name).\(key) expects \(expected)",
            [("entity", .string(name)), ("key", .string(key)), ("expected", .string(expected))])
    }

    private func wrongEntity(_ key: String, _ id: ObjectID, _ r: Relationship) -> EngineError {
        EngineError(
            .typeMismatch, "\(name).\(key) expects \(r.destination) ids, not \(id)",
            [
                ("entity", .string(name)), ("key", .string(key)), ("expected", .string(r.destination)),
                ("id", .string(id.description)),
            ])
    }
}
