import JSON

/// Notification params that write their own bytes. A payload sent thousands of times a cycle
/// (`controller/didChangeObject` in rows mode) splices what its messages share (an object's
/// JSON, encoded once per cycle) instead of building and walking a JSON tree per message.
public protocol EncodedParams: Sendable {
    /// The params as a value, for a consumer that reads them (the MCP face, tests).
    var json: JSON { get }
    /// Exactly the bytes `JSONWriter.write(json)` would write: output is the same either way.
    func write(to writer: inout JSONWriter)
}
