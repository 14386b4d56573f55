import JSON

/// Where `--store` and `store/open` point: a SQLite file, or a PostgreSQL server given by a
/// libpq URL whose dataset lives in one schema (protocol.md §5, "A PostgreSQL server").
public enum StoreLocation {
    /// Whether `store` names a PostgreSQL server rather than a file.
    public static func isServerURL(_ store: String) -> Bool {
        store.hasPrefix("postgresql://") || store.hasPrefix("postgres://")
    }

    /// `store/open`'s params for a `--store` value: `path`, or `url` for a server; without a
    /// model the store opens with the one it records.
    public static func openParams(store: String, model: JSON?) -> JSON {
        var params: JSONObject = isServerURL(store) ? ["url": .string(store)] : ["path": .string(store)]
        if let model { params["model"] = model }
        return .object(params)
    }
}
