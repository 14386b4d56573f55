import JSON

/// The OpenRPC 1.3 document (protocol.md §14), generated from the method table: what
/// `rpc.discover` answers and `fetchd describe` prints.
public enum OpenRPCDocument {
    public static func make(_ descriptions: [MethodDescription], version: String) -> JSON {
        .object([
            "openrpc": "1.3.2",
            "info": [
                "title": "fetchd", "version": .string(version),
                "description": "NSFetchedResultsController as a JSON-RPC 2.0 server (protocol.md).",
            ],
            "methods": .array(descriptions.map(method)),
            "components": ["schemas": .object(JSONObject(Components.all.map { ($0.0, .object($0.1.json)) }))],
        ])
    }

    static func method(_ d: MethodDescription) -> JSON {
        var o: JSONObject = ["name": .string(d.name), "summary": .string(d.summary), "paramStructure": "by-name"]
        o["params"] = .array(
            d.params.map { p in
                var param: JSONObject = [
                    "name": .string(p.name), "required": .bool(p.required),
                    "schema": .object(p.schema.json),
                ]
                if let text = p.description { param["description"] = .string(text) }
                return .object(param)
            })
        if let result = d.result {
            o["result"] = ["name": .string(result.name), "schema": .object(result.schema.json)]
        }
        o["errors"] = .array(d.errors.map { ["code": .integer(Int64($0.code)), "message": .string($0.kind)] })
        if let direction = d.direction {
            o["x-notification"] = true
            o["x-direction"] = .string(direction.rawValue)
        }
        return .object(o)
    }

    /// 2-space indented JSON with a trailing newline (`json.dumps(doc, indent=2)` of Python).
    public static func pretty(_ value: JSON) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        return out + "\n"
    }

    private static func write(_ value: JSON, indent: Int, into out: inout String) {
        let pad = String(repeating: " ", count: indent + 2)
        switch value {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += pad
                write(item, indent: indent + 2, into: &out)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case .object(let o) where !o.isEmpty:
            out += "{\n"
            for (i, entry) in o.entries.enumerated() {
                out += pad + JSON.string(entry.key).serializedString + ": "
                write(entry.value, indent: indent + 2, into: &out)
                out += i == o.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "}"
        default:
            out += value.serializedString
        }
    }
}

extension Server {
    /// This server's OpenRPC document.
    public var openRPCDocument: JSON { OpenRPCDocument.make(methods.descriptions, version: configuration.version) }
}
