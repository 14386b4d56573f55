import Model
import Predicates
import Store

/// One column of a dictionary result: a key path's value, or a function over a key path's
/// values in each group; `name` is the result row's key.
public struct DictionaryProperty: Sendable, Equatable {
    public var name: String
    public var keyPath: String
    public var function: AggregateFunction?
    public init(name: String, keyPath: String, function: AggregateFunction? = nil) {
        self.name = name
        self.keyPath = keyPath
        self.function = function
    }
}

/// A dictionary (or aggregate) fetch: Core Data's `.dictionaryResultType` with
/// propertiesToFetch, propertiesToGroupBy, havingPredicate and returnsDistinctResults
/// (protocol.md §6, "Dictionary results").
public struct DictionaryRequest {
    public var entity: String
    public var filter: (any ObjectFilter)?
    /// The objects' order, for results without groups.
    public var ordering: (any ObjectOrdering)?
    public var properties: [DictionaryProperty]
    public var groupBy: [String]
    /// Over the result rows (group keys and expression names).
    public var having: (any ObjectFilter)?
    public var distinct: Bool
    /// Grouped results' order, by result key; the group keys ascending when empty.
    public var resultOrder: [(key: String, ascending: Bool, comparator: Comparator)]
    public var limit: Int?
    public var offset: Int

    public init(
        entity: String, filter: (any ObjectFilter)? = nil, ordering: (any ObjectOrdering)? = nil,
        properties: [DictionaryProperty], groupBy: [String] = [], having: (any ObjectFilter)? = nil,
        distinct: Bool = false, resultOrder: [(key: String, ascending: Bool, comparator: Comparator)] = [],
        limit: Int? = nil, offset: Int = 0
    ) {
        self.entity = entity
        self.filter = filter
        self.ordering = ordering
        self.properties = properties
        self.groupBy = groupBy
        self.having = having
        self.distinct = distinct
        self.resultOrder = resultOrder
        self.limit = limit
        self.offset = offset
    }

    public var isGrouped: Bool { !groupBy.isEmpty || properties.contains { $0.function != nil } }
}

/// A key path resolved against the model: to-one hops, then an attribute or the object.
struct ResolvedPath {
    let hops: [String]
    let last: String
    /// nil when the path ends at a to-one relationship (its value is the object's id).
    let type: AttributeType?
}

extension Context {
    /// The result rows of a dictionary fetch over this context's view (its unsaved changes
    /// included), each keyed by key path or expression name. Groups and aggregates are
    /// computed by SQL when no object the fetch reads differs from the store (`preferSQL`),
    /// otherwise in memory; both give the same rows (the agreement test compares them).
    public func fetchDictionaries(_ r: DictionaryRequest, preferSQL: Bool = true) throws(EngineError) -> [Snapshot] {
        guard model.entity(r.entity) != nil else {
            throw EngineError(.unknownEntity, "no entity \(r.entity)", [("entity", .string(r.entity))])
        }
        let paths = try resolvePaths(r)
        var rows: [Snapshot]
        if r.isGrouped {
            let direct = paths.values.allSatisfy { $0.hops.isEmpty && $0.type != nil }
            if preferSQL, direct,
                try overlayIDs(entity: r.entity, paths: r.filter?.relationshipPaths ?? []).isEmpty
            {
                rows = try store.aggregate(
                    entity: r.entity, filter: r.filter,
                    groupBy: r.groupBy.map { ($0, paths[$0]!.type) },
                    functions: r.properties.compactMap { p in
                        p.function.map { (p.name, $0, p.keyPath, paths[p.keyPath]!.type) }
                    })
            } else {
                rows = try groupInMemory(r, paths)
            }
        } else {
            rows = []
            for id in try fetch(entity: r.entity, filter: r.filter, ordering: r.ordering) {
                guard let values = try object(id) else { continue }
                var row: Snapshot = [:]
                for p in r.properties { row[p.name] = try resolve(paths[p.keyPath]!, values) }
                rows.append(row)
            }
        }
        if let having = r.having {
            let id = ObjectID(entity: r.entity, number: 0)
            rows = rows.filter { having.matches(id, $0, in: self) }
        }
        if r.distinct && !r.isGrouped {
            var seen = Set<Snapshot>()
            rows = rows.filter { seen.insert($0).inserted }
        }
        if r.isGrouped {
            let order =
                r.resultOrder.isEmpty
                ? r.groupBy.map { (key: $0, ascending: true, comparator: Comparator.compare) } : r.resultOrder
            rows.sort { a, b in
                for o in order {
                    let c = SortComparison.compare(a[o.key] ?? .null, b[o.key] ?? .null, o.comparator)
                    if c != 0 { return o.ascending ? c < 0 : c > 0 }
                }
                return false
            }
        }
        let start = min(max(0, r.offset), rows.count)
        let end = r.limit.map { min(rows.count, start + max(0, $0)) } ?? rows.count
        return Array(rows[start..<end])
    }

    /// Checks every key path (to-one hops, then an attribute), the functions' types, and
    /// that a grouped fetch fetches only group keys and expressions.
    private func resolvePaths(_ r: DictionaryRequest) throws(EngineError) -> [String: ResolvedPath] {
        var paths: [String: ResolvedPath] = [:]
        for path in r.properties.map(\.keyPath) + r.groupBy where paths[path] == nil {
            paths[path] = try resolvePath(path, from: r.entity)
        }
        for p in r.properties {
            if let f = p.function, f == .sum || f == .average {
                let type = paths[p.keyPath]!.type
                guard type == .integer || type == .double else {
                    throw EngineError(
                        .typeMismatch, "\(f.rawValue) needs a number; \(p.keyPath) is \(type?.rawValue ?? "an object")",
                        [("key", .string(p.keyPath)), ("expected", "integer or double")])
                }
            }
            if r.isGrouped && p.function == nil && !r.groupBy.contains(p.keyPath) {
                throw EngineError(
                    .invalidValue,
                    "\(p.keyPath) is fetched but not grouped by: fetch it with a function or group by it",
                    [("key", .string(p.keyPath))])
            }
        }
        return paths
    }

    private func resolvePath(_ text: String, from root: String) throws(EngineError) -> ResolvedPath {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var entity = model.entity(root)!
        var hops: [String] = []
        for (i, name) in parts.enumerated() {
            let last = i == parts.count - 1
            if let a = entity.attribute(name), last { return ResolvedPath(hops: hops, last: name, type: a.type) }
            guard let rel = entity.relationship(name), let next = model.entity(rel.destination) else {
                throw EngineError(
                    .unknownKey, "\(entity.name) has no key \(name)",
                    [("entity", .string(entity.name)), ("key", .string(text))])
            }
            guard !rel.toMany else {
                throw EngineError(
                    .typeMismatch, "\(text): \(name) is a to-many relationship; dictionary key paths go through to-one",
                    [("key", .string(text)), ("expected", "attributes and to-one relationships")])
            }
            if last { return ResolvedPath(hops: hops, last: name, type: nil) }
            hops.append(name)
            entity = next
        }
        throw EngineError(.unknownKey, "no key path \(text)", [("entity", .string(root)), ("key", .string(text))])
    }

    private func resolve(_ path: ResolvedPath, _ values: Snapshot) throws(EngineError) -> Value {
        var current = values
        for hop in path.hops {
            guard case .object(let next)? = current[hop], let v = try object(next) else { return .null }
            current = v
        }
        return current[path.last] ?? .null
    }

    /// Groups and aggregates over the objects as this context sees them.
    private func groupInMemory(_ r: DictionaryRequest, _ paths: [String: ResolvedPath]) throws(EngineError)
        -> [Snapshot]
    {
        var groups: [[Value]: [Accumulator]] = [:]
        let functions = r.properties.compactMap { p in p.function.map { (p, $0) } }
        for id in try fetch(entity: r.entity, filter: r.filter) {
            guard let values = try object(id) else { continue }
            var key: [Value] = []
            for g in r.groupBy { key.append(try resolve(paths[g]!, values)) }
            var accumulators = groups[key] ?? functions.map { Accumulator($0.1, paths[$0.0.keyPath]!.type) }
            for (i, f) in functions.enumerated() { accumulators[i].add(try resolve(paths[f.0.keyPath]!, values)) }
            groups[key] = accumulators
        }
        // An aggregate without groups answers one row, even over no objects (as SQL does).
        if groups.isEmpty && r.groupBy.isEmpty {
            groups[[]] = functions.map { Accumulator($0.1, paths[$0.0.keyPath]!.type) }
        }
        return groups.map { key, accumulators in
            var row: Snapshot = [:]
            for (i, g) in r.groupBy.enumerated() { row[g] = key[i] }
            for (i, f) in functions.enumerated() { row[f.0.name] = accumulators[i].result }
            return row
        }
    }
}

/// One function's running value over a group, with SQL's rules: nulls are skipped; count
/// counts values; sum of integers is an integer, of doubles a double; average is a double;
/// a function over no values is null (count: 0).
struct Accumulator {
    let function: AggregateFunction
    let type: AttributeType?
    var count: Int64 = 0
    var intSum: Int64 = 0
    var doubleSum: Double = 0
    var extreme: Value = .null

    init(_ function: AggregateFunction, _ type: AttributeType?) {
        self.function = function
        self.type = type
    }

    mutating func add(_ v: Value) {
        if v.isNull { return }
        count += 1
        switch v {
        case .integer(let i):
            intSum &+= i
            doubleSum += Double(i)
        case .double(let d): doubleSum += d
        default: break
        }
        if function == .min || function == .max, extreme.isNull {
            extreme = v
        } else if function == .min, SortComparison.compare(v, extreme, .compare) < 0 {
            extreme = v
        } else if function == .max, SortComparison.compare(v, extreme, .compare) > 0 {
            extreme = v
        }
    }

    var result: Value {
        switch function {
        case .count: return .integer(count)
        case .sum: return count == 0 ? .null : type == .integer ? .integer(intSum) : .double(doubleSum)
        case .average: return count == 0 ? .null : .double(doubleSum / Double(count))
        case .min, .max: return extreme
        }
    }
}

extension Context {
    /// The result rows' keys with their types, for compiling a having predicate over them:
    /// group keys, then the fetched properties (count: integer, average: double, sum, min and
    /// max: the key path's type). Keys that end at a relationship are left out.
    public func resultColumns(_ r: DictionaryRequest) throws(EngineError) -> [(name: String, type: AttributeType)] {
        let paths = try resolvePaths(r)
        var columns: [(name: String, type: AttributeType)] = []
        for g in r.groupBy { if let t = paths[g]!.type { columns.append((g, t)) } }
        for p in r.properties where !r.groupBy.contains(p.name) || p.function != nil {
            switch p.function {
            case .count?: columns.append((p.name, .integer))
            case .average?: columns.append((p.name, .double))
            default: if let t = paths[p.keyPath]!.type { columns.append((p.name, t)) }
            }
        }
        return columns
    }
}
