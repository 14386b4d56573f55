import JSON

/// What one JSON value received from the client turned out to be.
public enum IncomingMessage: Equatable, Sendable {
    case request(Request)
    /// Not a valid Request object: answered with `error`, using `id` when one could be read.
    case invalid(RPCError, id: RequestID)
    /// A Response object from the client. fetchd sends no requests, so it is logged and dropped.
    case response(id: RequestID?)
}

extension IncomingMessage {
    /// Validates a Request object. A well-typed id is echoed even when the rest is invalid, so a
    /// client's pending call resolves; any other id is answered as null.
    public init(_ json: JSON) {
        guard case .object(let object) = json else {
            self = .invalid(.invalidRequest("a request must be a JSON object, not \(json.typeName)"), id: .null)
            return
        }
        var id: RequestID?
        if let rawID = object["id"] {
            guard let valid = RequestID(rawID) else {
                self = .invalid(
                    .invalidRequest("\"id\" must be a string, a number or null, not \(rawID.typeName)"),
                    id: .null)
                return
            }
            id = valid
        }
        if object["method"] == nil, object["result"] != nil || object["error"] != nil {
            self = .response(id: id)
            return
        }
        guard object["jsonrpc"] == .string("2.0") else {
            self = .invalid(.invalidRequest("\"jsonrpc\" must be exactly \"2.0\""), id: id ?? .null)
            return
        }
        guard case .string(let method)? = object["method"] else {
            let got = object["method"].map { "not \($0.typeName)" } ?? "missing"
            self = .invalid(.invalidRequest("\"method\" must be a string (\(got))"), id: id ?? .null)
            return
        }
        let params: Params?
        switch object["params"] {
        case nil, .null?: params = nil
        case .object(let o)?: params = .byName(o)
        case .array(let a)?: params = .byPosition(a)
        case let other?:
            self = .invalid(
                .invalidRequest("\"params\" must be an object or an array, not \(other.typeName)"),
                id: id ?? .null)
            return
        }
        self = .request(Request(method: method, params: params, id: id))
    }
}
