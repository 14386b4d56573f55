/// Every failure the engine reports. `kind` is the stable name the wire shows as
/// `data.kind`; `details` name the offending parameter, entity, key or id. The server maps
/// kinds to JSON-RPC codes in one table.
public struct EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    public var kind: Kind
    public var message: String
    /// Ordered, so the wire's `data` is deterministic.
    public var details: [(String, Detail)]

    public init(_ kind: Kind, _ message: String, _ details: [(String, Detail)] = []) {
        self.kind = kind
        self.message = message
        self.details = details
    }

    public var description: String { "\(kind.rawValue): \(message)" }

    public func detail(_ key: String) -> Detail? { details.first { $0.0 == key }?.1 }

    public static func == (a: EngineError, b: EngineError) -> Bool {
        a.kind == b.kind && a.message == b.message
            && a.details.elementsEqual(b.details) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    /// A stable error name. Modules add their kinds as static constants in extensions.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }

    /// Structured detail, translated mechanically to JSON by the server.
    public indirect enum Detail: Equatable, Sendable {
        case null
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string(String)
        case list([Detail])
        case record([(String, Detail)])

        public static func == (a: Detail, b: Detail) -> Bool {
            switch (a, b) {
            case (.null, .null): return true
            case (.bool(let x), .bool(let y)): return x == y
            case (.int(let x), .int(let y)): return x == y
            case (.double(let x), .double(let y)): return x == y
            case (.string(let x), .string(let y)): return x == y
            case (.list(let x), .list(let y)): return x == y
            case (.record(let x), .record(let y)): return x.elementsEqual(y) { $0.0 == $1.0 && $0.1 == $1.1 }
            default: return false
            }
        }
    }
}

extension EngineError.Detail: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// The kinds every module shares. Module-specific kinds live beside their module.
extension EngineError.Kind {
    public static let invalidModel = Self("invalidModel")
    public static let noStore = Self("noStore")
    public static let unknownEntity = Self("unknownEntity")
    public static let unknownKey = Self("unknownKey")
    public static let unknownObject = Self("unknownObject")
    public static let unknownContext = Self("unknownContext")
    public static let unknownController = Self("unknownController")
    public static let duplicateName = Self("duplicateName")
    public static let typeMismatch = Self("typeMismatch")
    public static let invalidValue = Self("invalidValue")
    public static let predicateSyntax = Self("predicateSyntax")
    public static let missingVariable = Self("missingVariable")
    public static let validation = Self("validation")
    public static let deleteDenied = Self("deleteDenied")
    public static let mergeConflict = Self("mergeConflict")
    public static let migrationRefused = Self("migrationRefused")
    public static let storeError = Self("storeError")
}
