import Model

/// The compile-time errors, with their details in a fixed order for the wire.
enum CompileError {
    static func unknownKey(entity: String, key: String) -> EngineError {
        EngineError(
            .unknownKey, "Entity \(entity) has no key '\(key)'", [("entity", .string(entity)), ("key", .string(key))])
    }

    static func typeMismatch(entity: String, key: String, expected: String, got: String) -> EngineError {
        EngineError(
            .typeMismatch, "'\(key)' of \(entity): expected \(expected), got \(got)",
            [
                ("entity", .string(entity)), ("key", .string(key)), ("expected", .string(expected)),
                ("got", .string(got)),
            ])
    }

    static func missingVariable(_ name: String) -> EngineError {
        EngineError(.missingVariable, "No value for $\(name) in the request's variables", [("variable", .string(name))])
    }

    static func invalidValue(_ value: String, reason: String) -> EngineError {
        EngineError(.invalidValue, "\(reason): \(value)", [("value", .string(value)), ("reason", .string(reason))])
    }

    static func unknownEntity(_ name: String) -> EngineError {
        EngineError(.unknownEntity, "No entity named \(name)", [("entity", .string(name))])
    }
}
