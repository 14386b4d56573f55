import JSON
import JSONRPC
import Model
import Predicates

/// `FetchRequest` from its wire object: `{entity, predicate?, variables?, sortDescriptors?,
/// fetchLimit?, fetchOffset?, fetchBatchSize?}`. Variables are untyped values (the compiler
/// types them by what they meet); JSON arrays are list variables (`IN $names`).
extension FetchRequest: ParamDecodable {
    public init(from params: ParamReader) throws {
        let entity = try params.string("entity")
        var variables: [String: Value] = [:]
        var lists: [String: [Value]] = [:]
        if let vars = try params.optionalObject("variables") {
            for (name, json) in vars.object {
                if case .array(let items) = json {
                    var list: [Value] = []
                    for (i, item) in items.enumerated() {
                        guard let v = WireValue.untyped(item) else {
                            throw vars.mismatch("\(name)[\(i)]", "a string, number, boolean or null", got: item.typeName)
                        }
                        list.append(v)
                    }
                    lists[name] = list
                } else if let v = WireValue.untyped(json) {
                    variables[name] = v
                } else {
                    throw vars.mismatch(name, "a string, number, boolean, null or array", got: json.typeName)
                }
            }
        }
        var sorts: [SortDescriptor] = []
        if let items = try params.optionalArray("sortDescriptors", of: JSON.self) {
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item else {
                    throw params.mismatch("sortDescriptors[\(i)]", "object", got: item.typeName)
                }
                let d = ParamReader(o, path: params.name("sortDescriptors[\(i)]") + ".")
                var comparator = Comparator.compare
                if let text = try d.optionalString("comparator") {
                    guard let c = Comparator(rawValue: text) else {
                        throw d.mismatch("comparator", Comparator.allCases.map(\.rawValue).joined(separator: " | "), got: "\"\(text)\"")
                    }
                    comparator = c
                }
                sorts.append(SortDescriptor(key: try d.string("key"), ascending: try d.optionalBool("ascending") ?? true,
                                            comparator: comparator))
            }
        }
        let limit = try params.optionalInt("fetchLimit")
        if let limit, limit < 0 { throw params.mismatch("fetchLimit", "integer >= 0", got: "\(limit)") }
        let offset = try params.optionalInt("fetchOffset") ?? 0
        if offset < 0 { throw params.mismatch("fetchOffset", "integer >= 0", got: "\(offset)") }
        // fetchBatchSize is accepted for Core Data parity; results are not faulted in batches.
        if let batch = try params.optionalInt("fetchBatchSize"), batch < 0 {
            throw params.mismatch("fetchBatchSize", "integer >= 0", got: "\(batch)")
        }
        self.init(entity: entity, predicate: try params.optionalString("predicate"), variables: variables,
                  listVariables: lists, sortDescriptors: sorts, fetchLimit: limit == 0 ? nil : limit, fetchOffset: offset)
    }
}
