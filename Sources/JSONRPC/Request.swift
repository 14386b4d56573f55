import JSON

/// Request parameters: by name (an object) or by position (an array).
public enum Params: Equatable, Sendable {
    case byName(JSONObject)
    case byPosition([JSON])

    public var json: JSON {
        switch self {
        case .byName(let o): return .object(o)
        case .byPosition(let a): return .array(a)
        }
    }
}

/// A valid JSON-RPC request, or a notification when `id` is nil.
public struct Request: Equatable, Sendable {
    public var method: String
    /// nil when absent or `null` (pygls sends `"params": null`).
    public var params: Params?
    public var id: RequestID?

    public init(method: String, params: Params? = nil, id: RequestID? = nil) {
        self.method = method
        self.params = params
        self.id = id
    }

    public var isNotification: Bool { id == nil }
}
