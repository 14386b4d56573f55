import JSON
import JSONRPC
import Model
import Predicates

/// `FetchRequest` as the wire spells it (protocol.md §7-8): its members, declared once for
/// the `FetchRequest` and `SortDescriptor` components and for reading them.
///
/// Variables stay untyped here (a date or uuid is a string, an id is `"Entity/N"`); the
/// predicate compiler types each one by the attribute it meets. A JSON array becomes a
/// list variable for `IN $x` / `BETWEEN $x`.
enum FetchRequestWire {
    static let entity = Param<String>.required("entity", .string)
    static let predicate = Param<String?>.optional(
        "predicate", .string, "NSPredicate format syntax (protocol.md §7).")
    static let variables = Param<JSONObject?>.optional(
        "variables", variablesSchema, "Values of $variables; an array is a list.")
    static let sortDescriptors = Param<[JSONObject]?>.optional("sortDescriptors", .array(.ref("SortDescriptor")))
    // 0 means no limit, as in Core Data.
    static let fetchLimit = Param<Int?>.optional("fetchLimit", Schema.integer.minimum(0), "0 or absent: no limit.")
    static let fetchOffset = Param<Int?>.optional("fetchOffset", Schema.integer.minimum(0))
    // Accepted for Core Data compatibility; every fetch is already batched by the controller.
    static let fetchBatchSize = Param<Int?>.optional(
        "fetchBatchSize", Schema.integer.minimum(0), "Accepted and ignored.")
    static let schema = Schema.object(
        members: [entity, predicate, variables, sortDescriptors, fetchLimit, fetchOffset, fetchBatchSize])

    static let key = Param<String>.required("key", .string)
    static let ascending = Param<Bool?>.optional("ascending", .boolean)
    static let comparator = Param<Comparator?>.optional("comparator", .cases(Comparator.self))
    static let sortDescriptor = Schema.object(members: [key, ascending, comparator])

    /// A variable's value: a scalar, or an array of them (a list).
    static let variablesSchema = Schema.object(
        [],
        additional: Schema.types("string", "number", "boolean", "null", "array")
            .items(.types("string", "number", "boolean", "null")))

    /// Checked `variables` as single values and lists.
    static func values(_ object: JSONObject?) -> (single: [String: Value], lists: [String: [Value]]) {
        var single: [String: Value] = [:]
        var lists: [String: [Value]] = [:]
        for (name, json) in object ?? [:] {
            if case .array(let items) = json {
                lists[name] = items.map { WireValue.untyped($0) ?? .null }
            } else {
                single[name] = WireValue.untyped(json) ?? .null
            }
        }
        return (single, lists)
    }
}

extension Comparator: ParamValue {}

extension FetchRequest: ParamDecodable {
    public init(from params: ParamReader) throws {
        typealias W = FetchRequestWire
        let entity = try params[W.entity]
        let predicate = try params[W.predicate]
        let (variables, lists) = W.values(try params[W.variables])
        var sort: [SortDescriptor] = []
        for (i, object) in (try params[W.sortDescriptors] ?? []).enumerated() {
            let d = ParamReader(object, path: params.name("sortDescriptors") + "[\(i)].")
            sort.append(
                SortDescriptor(
                    key: try d[W.key], ascending: try d[W.ascending] ?? true,
                    comparator: try d[W.comparator] ?? .compare
                ))
        }
        let limit = try params[W.fetchLimit]
        self.init(
            entity: entity, predicate: predicate, variables: variables, listVariables: lists, sortDescriptors: sort,
            fetchLimit: limit == 0 ? nil : limit, fetchOffset: try params[W.fetchOffset] ?? 0)
    }
}
