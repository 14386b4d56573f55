import JSON

/// A request id, echoed exactly: a string, an integer, a number (legal though discouraged) or null.
public enum RequestID: Equatable, Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case null

    /// nil when the value is not a legal id type (boolean, array, object).
    public init?(_ json: JSON) {
        switch json {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .number(d)
        case .null: self = .null
        default: return nil
        }
    }

    public var json: JSON {
        switch self {
        case .string(let s): return .string(s)
        case .integer(let i): return .integer(i)
        case .number(let d): return .double(d)
        case .null: return .null
        }
    }
}
