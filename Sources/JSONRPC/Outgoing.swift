import JSON

/// A server-to-client notification: its params as a value, or as params that write
/// themselves (read as a value only by a consumer that asks).
public struct OutgoingNotification: Equatable, Sendable {
    public var method: String
    private var value: JSON?
    private var encoded: (any EncodedParams)?

    public init(method: String, params: JSON? = nil) {
        self.method = method
        self.value = params
    }

    public init(method: String, encoded: any EncodedParams) {
        self.method = method
        self.encoded = encoded
    }

    public var params: JSON? {
        get { encoded?.json ?? value }
        set {
            value = newValue
            encoded = nil
        }
    }

    var hasParams: Bool { encoded != nil || value != nil }

    func writeParams(to writer: inout JSONWriter) {
        if let encoded {
            encoded.write(to: &writer)
        } else if let value {
            writer.write(value)
        }
    }

    public static func == (a: OutgoingNotification, b: OutgoingNotification) -> Bool {
        a.method == b.method && a.params == b.params
    }
}

/// The answer to one request.
public struct Response: Equatable, Sendable {
    public var id: RequestID
    public var outcome: Result<JSON, RPCError>

    public init(id: RequestID, outcome: Result<JSON, RPCError>) {
        self.id = id
        self.outcome = outcome
    }
}

/// One top-level message fetchd writes.
public enum Outgoing: Equatable, Sendable {
    case notification(OutgoingNotification)
    case response(Response)
    /// The responses to a batch, in the batch's order; never empty.
    case batch([Response])
}

extension JSONWriter {
    /// Writes straight into the frame buffer, without building a JSON value for the envelope.
    public mutating func write(_ message: Outgoing) {
        switch message {
        case .notification(let n):
            writeRaw("{\"jsonrpc\":\"2.0\",\"method\":")
            write(string: n.method)
            if n.hasParams {
                writeRaw(",\"params\":")
                n.writeParams(to: &self)
            }
            writeRaw("}")
        case .response(let r):
            write(r)
        case .batch(let responses):
            writeRaw("[")
            for (i, r) in responses.enumerated() {
                if i > 0 { writeRaw(",") }
                write(r)
            }
            writeRaw("]")
        }
    }

    /// `{"jsonrpc":"2.0","result":...,"id":...}`, the member order of the specification's examples.
    public mutating func write(_ response: Response) {
        switch response.outcome {
        case .success(let result):
            writeRaw("{\"jsonrpc\":\"2.0\",\"result\":")
            write(result)
        case .failure(let error):
            writeRaw("{\"jsonrpc\":\"2.0\",\"error\":")
            write(error.json)
        }
        writeRaw(",\"id\":")
        write(response.id.json)
        writeRaw("}")
    }
}
