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
    static let path = Param<String?>.optional("path", .string, "The SQLite file; \":memory:\" by default.")
    static let url = Param<String?>.optional(
        "url", Schema.string.pattern("^postgres(ql)?://", "a postgresql:// URL", StoreLocation.isServerURL),
        "A PostgreSQL server instead of a file: a libpq URL (postgresql://...; a schema=NAME query parameter sets schema); not with path."
    )
    static let schema = Param<String?>.optional(
        "schema", .string, "The PostgreSQL schema holding the dataset; \"fetchd\" by default (url only).")
    /// Read by the model decoder, whose invalidModel names the path inside the model.
    static let model = Param<JSON?>.optional(
        "model", Schema.ref("Model").checkedBy(.engine),
        "The model. Without it an existing store opens with the model it records; a new store needs one.")
    static let historyToken = Param<Int64?>.optional(
        "historyToken", .integer,
        "Merging of other processes' commits continues after this token (one saved before a restart).")
    public static let params = ParamSpec.list(path, url, schema, model, historyToken)

    /// Where the store is: a SQLite file or a PostgreSQL schema.
    enum Location {
        case file(String)
        case server(url: String, schema: String?)
    }
    let location: Location
    let model: JSON?
    let historyToken: Int64?
    public init(params p: ParamReader) throws {
        let path = try p[Self.path]
        let url = try p[Self.url]
        let schema = try p[Self.schema]
        // Rules between params, which no one param's schema states.
        if let url {
            if path != nil { throw p.mismatch("path", "no path with url", got: "both") }
            location = .server(url: url, schema: schema)
        } else {
            if schema != nil { throw p.mismatch("schema", "schema only with url", got: "no url") }
            location = .file(path ?? ":memory:")
        }
        model = try p[Self.model]
        historyToken = try p[Self.historyToken]
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
