import Model

/// Follows `path` from an object: every name but the last is a to-one relationship.
func resolve(_ path: [String], _ values: Snapshot, in view: ObjectView) -> Value {
    var current = values
    for (i, name) in path.enumerated() {
        let v = current[name] ?? .null
        if i == path.count - 1 { return v }
        guard case .object(let next) = v, let snap = view.snapshot(of: next) else { return .null }
        current = snap
    }
    return .null
}

/// A test predicate: a conjunction of comparisons of a key path with a constant.
struct TestFilter: ObjectFilter {
    enum Op: Sendable { case less, greater, equal, notEqual }
    struct Term: Sendable, Equatable {
        var path: [String]
        var op: Op
        var value: Value

        func holds(_ v: Value) -> Bool {
            let c = compareValues(v, value)
            switch op {
            case .less: return !v.isNull && c < 0
            case .greater: return !v.isNull && c > 0
            case .equal: return c == 0
            case .notEqual: return c != 0
            }
        }
    }

    let entity: String
    var terms: [Term] = []

    func sql(alias: String) -> SQLFragment { SQLFragment("1") }

    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool {
        terms.allSatisfy { $0.holds(resolve($0.path, values, in: view)) }
    }

    var relationshipPaths: [[String]] { terms.filter { $0.path.count > 1 }.map { Array($0.path.dropLast()) } }

    /// Own attributes only, so a controller whose keys hold them skips reading the object.
    var readAttributes: Set<String>? {
        terms.allSatisfy { $0.path.count == 1 } ? Set(terms.map { $0.path[0] }) : nil
    }

    var attributeTest: (attribute: String, test: @Sendable (Value) -> Bool)? {
        guard terms.count == 1, terms[0].path.count == 1 else { return nil }
        let term = terms[0]
        return (term.path[0], { term.holds($0) })
    }
}

/// Test sort descriptors over key paths, with an optional section key path first
/// (ascending) as the controller contract expects.
struct TestOrdering: ObjectOrdering {
    let entity: String
    let paths: [[String]]
    let ascending: [Bool]

    init(entity: String, section: [String]? = nil, sort: [([String], Bool)]) {
        self.entity = entity
        var paths = sort.map(\.0)
        var asc = sort.map(\.1)
        if let section, paths.first != section {
            paths.insert(section, at: 0)
            asc.insert(true, at: 0)
        }
        self.paths = paths
        self.ascending = asc
    }

    func orderBy(alias: String) -> SQLFragment { SQLFragment("") }
    func keyColumns(alias: String) -> [SQLFragment] { paths.map { SQLFragment($0.joined(separator: ".")) } }
    func key(of id: ObjectID, _ values: Snapshot, in view: ObjectView) -> SortKey {
        paths.map { resolve($0, values, in: view) }
    }
    func key(fromColumns columns: [Value]) -> SortKey { columns }
    func compare(_ a: SortKey, _ b: SortKey) -> Int { compareKeys(a, b, ascending: ascending) }
    var relationshipPaths: [[String]] { paths.filter { $0.count > 1 }.map { Array($0.dropLast()) } }
    var keyAttributes: [String?] { paths.map { $0.count == 1 ? $0[0] : nil } }
}
