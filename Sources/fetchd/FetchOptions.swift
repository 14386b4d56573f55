import ArgumentParser
import JSON

/// The fetch request of `query` and `watch`, built as a client would write it (protocol.md §7,
/// §8) and compiled by the server, so the predicate and sort are parsed exactly as in requests.
struct FetchOptions: ParsableArguments {
    @Option(help: "The entity to fetch.")
    var entity: String

    @Option(help: "A predicate in the request syntax (protocol.md §7), e.g. \"age > 30 AND name BEGINSWITH[c] 'a'\".")
    var predicate: String?

    @Option(
        help: """
            Values of the predicate's $variables, a JSON object: '{"p": "an"}'. Safer than pasting \
            text into --predicate.
            """)
    var variables: String?

    @Option(
        parsing: .unconditional,
        help: "Sort keys, comma-separated; -key sorts descending, key:comparator picks a comparator (§8).")
    var sort: String?

    @Option(help: "At most this many rows (fetchLimit).")
    var limit: Int?

    @Option(help: "Skip this many rows first (fetchOffset).")
    var offset: Int?

    @Option(help: "Only these keys (comma-separated) after the id.")
    var keys: String?

    func validate() throws {
        if let variables, (try? JSON.parse(Array(variables.utf8)))?.objectValue == nil {
            throw ValidationError("--variables must be a JSON object")
        }
    }

    var keyList: [String]? { keys.map { $0.split(separator: ",").map { String($0) } } }

    /// `{entity, predicate?, variables?, sortDescriptors?, fetchLimit?, fetchOffset?}`. Nothing is checked
    /// here: every problem (an empty or unknown sort key too) is the server's error.
    var request: JSON {
        var request: JSONObject = ["entity": .string(entity)]
        if let predicate { request["predicate"] = .string(predicate) }
        if let variables, let values = try? JSON.parse(Array(variables.utf8)) { request["variables"] = values }
        if let sort { request["sortDescriptors"] = .array(Self.sortDescriptors(sort)) }
        if let limit { request["fetchLimit"] = .integer(Int64(limit)) }
        if let offset { request["fetchOffset"] = .integer(Int64(offset)) }
        return .object(request)
    }

    /// `name,-age,title:localizedStandardCompare` to sort descriptors.
    static func sortDescriptors(_ text: String) -> [JSON] {
        text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            var key = Substring(item)
            var descriptor = JSONObject()
            var comparator: String?
            if let colon = key.firstIndex(of: ":") {
                comparator = String(key[key.index(after: colon)...])
                key = key[..<colon]
            }
            let ascending = !key.hasPrefix("-")
            if !ascending { key = key.dropFirst() }
            descriptor["key"] = .string(String(key))
            descriptor["ascending"] = .bool(ascending)
            if let comparator { descriptor["comparator"] = .string(comparator) }
            return .object(descriptor)
        }
    }
}
