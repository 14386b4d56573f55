import Controllers
import JSON
import JSONRPC
import Model
import Store

/// The one table from engine error kinds to JSON-RPC codes (documented in protocol.md §3).
/// Kinds that describe a bad parameter value are -32602, like a mistyped parameter; the rest
/// are server errors in -32000...-32099. A kind not listed here is -32000, the generic one.
public enum ErrorTable {
    public static let serverError = -32000

    public static let codes: [(kind: EngineError.Kind, code: Int)] = [
        // Parameter-shaped: the request's own values are wrong.
        (.typeMismatch, RPCError.invalidParamsCode),
        (.invalidValue, RPCError.invalidParamsCode),
        (.predicateSyntax, RPCError.invalidParamsCode),
        (.missingVariable, RPCError.invalidParamsCode),
        // Store and model.
        (.noStore, -32010),
        (.invalidModel, -32011),
        (.migrationRefused, -32012),
        (.storeError, -32013),
        (.storeClosed, -32014),
        (.storeBusy, -32015),
        (.storeUnavailable, -32016),
        // Names that do not resolve.
        (.unknownEntity, -32020),
        (.unknownKey, -32021),
        (.unknownObject, -32022),
        (.unknownContext, -32023),
        (.unknownController, -32024),
        (.duplicateName, -32025),
        // Saving and merging.
        (.validation, -32030),
        (.deleteDenied, -32031),
        (.mergeConflict, -32032),
    ]

    private static let byKind: [EngineError.Kind: Int] = Dictionary(
        uniqueKeysWithValues: codes.map { ($0.kind, $0.code) })

    public static func code(for kind: EngineError.Kind) -> Int { byKind[kind] ?? serverError }

    /// `{code, message: the engine's message, data: {kind, ...details in order}}`.
    public static func rpcError(_ error: EngineError) -> RPCError {
        var data = JSONObject()
        data["kind"] = .string(error.kind.rawValue)
        for (key, detail) in error.details where key != "kind" { data[key] = json(detail) }
        return RPCError(code: code(for: error.kind), message: error.message, data: .object(data))
    }

    public static func json(_ detail: EngineError.Detail) -> JSON {
        switch detail {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .list(let items): return .array(items.map(json))
        case .record(let fields): return .object(JSONObject(fields.map { ($0.0, json($0.1)) }))
        }
    }
}
