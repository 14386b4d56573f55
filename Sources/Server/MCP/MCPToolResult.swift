import JSON
import JSONRPC

/// A tool that failed on its domain (bad arguments, an unknown entity, a refused save): an
/// `isError` result the model can read and correct, not a protocol error. It wraps the
/// error fetchd would answer a client, so its `kind` and message are the same.
struct MCPToolError: Error {
    let rpc: RPCError

    init(_ rpc: RPCError) { self.rpc = rpc }

    init(kind: String, _ message: String, _ extra: JSONObject = [:]) {
        var data: JSONObject = ["kind": .string(kind)]
        for (key, value) in extra { data[key] = value }
        rpc = RPCError(code: RPCError.invalidParamsCode, message: message, data: .object(data))
    }
}

enum MCPToolResult {
    /// The answer as JSON text (what a model reads) and as `structuredContent` (what a program reads).
    static func success(_ structured: JSONObject) -> JSON {
        let value = JSON.object(structured)
        return ["content": [["type": "text", "text": .string(value.serializedString)]], "structuredContent": value]
    }

    /// The message, then the error object (`code`, `message`, `data` with its `kind`) as JSON.
    static func failure(_ error: MCPToolError) -> JSON {
        let text = "\(error.rpc.message)\n\(error.rpc.json.serializedString)"
        return ["content": [["type": "text", "text": .string(text)]], "isError": true]
    }
}
