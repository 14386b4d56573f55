import JSON
import Model

/// The store (protocol.md §5).
public enum StoreDeclarations {
    public static let open = MethodDeclaration<OpenStoreParams, OpenStoreResult>(
        "store/open", "Opens (or creates, or migrates) the SQLite store for a model; replaces the open one.",
        errors: [.invalidParams, .engine(.invalidModel), .engine(.migrationRefused), .engine(.storeError)])
}

public struct OpenStoreParams: PlainParams {
    public static let params: [ParamSpec] = [
        .optional("path", .string, "The SQLite file; \":memory:\" by default."),
        .required("model", .ref("Model")),
        .optional(
            "historyToken", .integer,
            "Merging of other processes' commits continues after this token (one saved before a restart)."),
    ]
    let path: String
    let model: JSON
    let historyToken: Int64?
    public init(params: ParamReader) throws {
        path = try params.optionalString("path") ?? ":memory:"
        model = try params.json("model")
        historyToken = try params.optionalInt("historyToken").map(Int64.init)
    }
}

public struct OpenStoreResult: RPCResult {
    public static let resultName = "opened"
    public static let schema = Schema.object(
        [("entities", .array(.string)), ("migrated", .boolean)],
        required: ["entities", "migrated"], closed: true)
    let entities: [String]
    let migrated: Bool
    public var json: JSON { .object(["entities": .array(entities.map(JSON.string)), "migrated": .bool(migrated)]) }
}
