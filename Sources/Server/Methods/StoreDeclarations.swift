import JSON
import JSONRPC
import Model

/// The store (protocol.md §5).
public enum StoreDeclarations {
    public static let open = MethodDeclaration<OpenStoreParams, OpenStoreResult>(
        "store/open",
        "Opens (or creates, or migrates) the store for a model: a SQLite file, or a schema on a PostgreSQL server; replaces the open one.",
        errors: [
            .invalidParams, .engine(.invalidModel), .engine(.migrationRefused), .engine(.storeError),
            .engine(.storeUnavailable),
        ], reportsProgress: true)
}

public struct OpenStoreParams: PlainParams {
    public static let params: [ParamSpec] = [
        .optional("path", .string, "The SQLite file; \":memory:\" by default."),
        .optional(
            "url", .string,
            "A PostgreSQL server instead of a file: a libpq URL (postgresql://...; a schema=NAME query parameter sets schema); not with path."
        ),
        .optional("schema", .string, "The PostgreSQL schema holding the dataset; \"fetchd\" by default (url only)."),
        .optional(
            "model", .ref("Model"),
            "The model. Without it an existing store opens with the model it records; a new store needs one."),
        .optional(
            "historyToken", .integer,
            "Merging of other processes' commits continues after this token (one saved before a restart)."),
    ]
    /// Where the store is: a SQLite file or a PostgreSQL schema.
    enum Location {
        case file(String)
        case server(url: String, schema: String?)
    }
    let location: Location
    let model: JSON?
    let historyToken: Int64?
    public init(params: ParamReader) throws {
        let path = try params.optionalString("path")
        let url = try params.optionalString("url")
        let schema = try params.optionalString("schema")
        if let url {
            if path != nil { throw RPCError.invalidParams(param: "path", expected: "no path with url", got: "both") }
            guard StoreLocation.isServerURL(url) else {
                throw RPCError.invalidParams(param: "url", expected: "a postgresql:// URL", got: "\"\(url)\"")
            }
            location = .server(url: url, schema: schema)
        } else {
            if schema != nil {
                throw RPCError.invalidParams(param: "schema", expected: "schema only with url", got: "no url")
            }
            location = .file(path ?? ":memory:")
        }
        model = params.optionalJSON("model")
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
