import JSON
import JSONRPC
import Model
import Predicates

/// `FetchRequest` as the wire spells it (protocol.md §7-8):
/// `{entity, predicate?, variables?, sortDescriptors?, fetchLimit?, fetchOffset?, fetchBatchSize?}`.
///
/// Variables stay untyped here (a date or uuid is a string, an id is `"Entity/N"`); the
/// predicate compiler types each one by the attribute it meets. A JSON array becomes a
/// list variable for `IN $x` / `BETWEEN $x`.
extension FetchRequest: ParamDecodable {
    static let wireKeys: Set<String> = [
        "entity", "predicate", "variables", "sortDescriptors", "fetchLimit", "fetchOffset",
        "fetchBatchSize",
    ]

    public init(from params: ParamReader) throws {
        for key in params.object.keys where !FetchRequest.wireKeys.contains(key) {
            throw params.mismatch(
                key, "one of " + FetchRequest.wireKeys.sorted().joined(separator: ", "), got: "unknown key")
        }
        let entity = try params.string("entity")
        let predicate = try params.optionalString("predicate")
        var variables: [String: Value] = [:]
        var lists: [String: [Value]] = [:]
        if let v = try params.optionalObject("variables") {
            for (name, json) in v.object {
                if case .array(let items) = json {
                    var list: [Value] = []
                    for (i, item) in items.enumerated() {
                        guard let value = WireValue.untyped(item) else {
                            throw v.mismatch("\(name)[\(i)]", "a string, number, boolean or null", got: item.typeName)
                        }
                        list.append(value)
                    }
                    lists[name] = list
                } else {
                    guard let value = WireValue.untyped(json) else {
                        throw v.mismatch(
                            name, "a string, number, boolean, null or an array of them", got: json.typeName)
                    }
                    variables[name] = value
                }
            }
        }
        var sort: [SortDescriptor] = []
        if let descriptors = try params.optionalArray("sortDescriptors", of: JSONObject.self) {
            for (i, object) in descriptors.enumerated() {
                let d = ParamReader(object, path: params.name("sortDescriptors") + "[\(i)].")
                for key in object.keys where !["key", "ascending", "comparator"].contains(key) {
                    throw d.mismatch(key, "one of ascending, comparator, key", got: "unknown key")
                }
                let comparatorName = try d.optionalString("comparator") ?? Comparator.compare.rawValue
                guard let comparator = Comparator(rawValue: comparatorName) else {
                    throw d.mismatch(
                        "comparator", Comparator.allCases.map(\.rawValue).joined(separator: " | "),
                        got: "'\(comparatorName)'")
                }
                sort.append(
                    SortDescriptor(
                        key: try d.string("key"), ascending: try d.optionalBool("ascending") ?? true,
                        comparator: comparator))
            }
        }
        // 0 means no limit, as in Core Data.
        let limit = try params.optionalInt("fetchLimit")
        if let limit, limit < 0 { throw params.mismatch("fetchLimit", "a count >= 0", got: String(limit)) }
        let offset = try params.optionalInt("fetchOffset") ?? 0
        if offset < 0 { throw params.mismatch("fetchOffset", "a count >= 0", got: String(offset)) }
        // Accepted for Core Data compatibility; every fetch is already batched by the controller.
        if let batch = try params.optionalInt("fetchBatchSize"), batch < 0 {
            throw params.mismatch("fetchBatchSize", "a count >= 0", got: String(batch))
        }
        self.init(
            entity: entity, predicate: predicate, variables: variables, listVariables: lists, sortDescriptors: sort,
            fetchLimit: limit == 0 ? nil : limit, fetchOffset: offset)
    }
}
