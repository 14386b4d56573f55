import JSON

/// Where `--store` and `store/open` point: a SQLite file, or a PostgreSQL server given by a
/// libpq URL whose dataset lives in one schema (protocol.md §5, "A PostgreSQL server").
public enum StoreLocation {
    /// Whether `store` names a PostgreSQL server rather than a file.
    public static func isServerURL(_ store: String) -> Bool {
        store.hasPrefix("postgresql://") || store.hasPrefix("postgres://")
    }

    /// `store/open`'s params for a `--store` value: `path`, or `url` for a server.
    public static func openParams(store: String, model: JSON) -> JSON {
        isServerURL(store) ? ["url": .string(store), "model": model] : ["path": .string(store), "model": model]
    }

    /// The URL without its `schema` query parameter (which libpq does not know), and that
    /// parameter's value. `postgresql:///db?host=/run/pg&schema=notes` -> (`postgresql:///db?host=/run/pg`, `notes`).
    static func splitSchema(_ url: String) -> (url: String, schema: String?) {
        guard let q = url.firstIndex(of: "?") else { return (url, nil) }
        var schema: String? = nil
        var kept: [Substring] = []
        for pair in url[url.index(after: q)...].split(separator: "&") {
            if pair.hasPrefix("schema=") {
                schema = String(pair.dropFirst("schema=".count)).removingPercentEncoding()
            } else {
                kept.append(pair)
            }
        }
        let base = String(url[..<q])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
    }
}

extension String {
    /// `%XX` escapes decoded (nil when one is malformed or the bytes are not UTF-8).
    fileprivate func removingPercentEncoding() -> String? {
        var bytes: [UInt8] = []
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let c = utf8[i]
            if c == UInt8(ascii: "%") {
                let h = utf8.index(i, offsetBy: 1, limitedBy: utf8.endIndex)
                let l = h.flatMap { utf8.index($0, offsetBy: 1, limitedBy: utf8.endIndex) }
                guard let h, let l, l < utf8.endIndex,
                    let v = UInt8(String(decoding: [utf8[h], utf8[l]], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(v)
                i = utf8.index(after: l)
            } else {
                bytes.append(c)
                i = utf8.index(after: i)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
