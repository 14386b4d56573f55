import Model

/// Compiled sort descriptors. Keys hold raw values; `compare` applies the comparators with
/// the same functions the SQL collations call, so ORDER BY and memory agree.
struct CompiledOrdering: ObjectOrdering {
    struct Component: Sendable {
        let key: BoundKeyPath
        let ascending: Bool
        let comparator: Comparator
        let node: KeyNode
        /// The value kind an untyped column already decodes to as this key's type (nil:
        /// every column needs `typed`), so bulk decoding skips the common case.
        let untypedKind: UntypedKind?

        init(key: BoundKeyPath, ascending: Bool, comparator: Comparator) {
            self.key = key
            self.ascending = ascending
            self.comparator = comparator
            self.node = KeyNode(key)
            switch key.terminal {
            case .attribute(_, .integer): untypedKind = .integer
            case .attribute(_, .double): untypedKind = .double
            case .attribute(_, .string): untypedKind = .string
            case .attribute(_, .binary): untypedKind = .binary
            default: untypedKind = nil
            }
        }

        var isText: Bool {
            if case .attribute(_, let type) = key.terminal { return type == .string || type == .uuid }
            return false
        }

        var collation: String {
            switch comparator {
            case .compare: return "BINARY"
            case .caseInsensitiveCompare: return SQLFunctions.caseInsensitiveCollation
            case .localizedStandardCompare: return SQLFunctions.localizedCollation
            }
        }
    }

    let entity: String
    let components: [Component]
    let relationshipPaths: [[String]]
    /// Each component's comparator and direction, in flat arrays: `compare` runs for every
    /// step of every search and sort, and reading them out of `components` copies (retains)
    /// the components' key paths.
    private let comparators: [Comparator]
    private let ascending: [Bool]
    /// Each component's attribute when every one is an attribute of the object itself
    /// (what `KeyNode` then reads), else nil.
    private let ownAttributes: [String]?

    init(entity: String, components: [Component], relationshipPaths: [[String]]) {
        self.entity = entity
        self.components = components
        self.relationshipPaths = relationshipPaths
        comparators = components.map(\.comparator)
        ascending = components.map(\.ascending)
        let own = components.compactMap(Self.ownAttribute)
        ownAttributes = own.count == components.count ? own : nil
    }

    func orderBy(alias: String) -> SQLFragment {
        var terms: [String] = []
        for c in components {
            var g = SQLGenerator(alias: alias)
            g.key(c.key)
            terms.append(g.text + (c.isText ? " COLLATE \(c.collation)" : "") + (c.ascending ? " ASC" : " DESC"))
        }
        return SQLFragment(terms.joined(separator: ", "))
    }

    var keyAttributes: [String?] { components.map(Self.ownAttribute) }

    /// The attribute of the object itself a component sorts by; nil for a key path through
    /// a relationship, or to an object.
    private static func ownAttribute(_ c: Component) -> String? {
        if c.key.scope == 0, c.key.hops.isEmpty, case .attribute(let name, _) = c.key.terminal { return name }
        return nil
    }

    func keyColumns(alias: String) -> [SQLFragment] {
        components.map { c in
            var g = SQLGenerator(alias: alias)
            g.key(c.key)
            return g.fragment
        }
    }

    func key(of id: ObjectID, _ values: Snapshot, in view: ObjectView) -> SortKey {
        // Own attributes only (the common ordering): read from the values, no evaluation.
        if let ownAttributes { return ownAttributes.map { values[$0] ?? .null } }
        var context = EvaluationContext(view: view, id: id, values: values)
        var key: SortKey = []
        key.reserveCapacity(components.count)
        for c in components { key.append(c.node.value(&context)) }
        return key
    }

    func key(fromColumns columns: [Value]) -> SortKey {
        zip(components, columns).map { c, v in CompiledOrdering.typed(v, c.key.terminal) }
    }

    enum UntypedKind: Sendable { case integer, double, string, binary }

    func decodeKey(_ key: inout SortKey) {
        for i in components.indices {
            switch (components[i].untypedKind, key[i]) {
            case (_, .null), (.integer?, .integer), (.double?, .double), (.string?, .string), (.binary?, .binary):
                continue
            default: key[i] = CompiledOrdering.typed(key[i], components[i].key.terminal)
            }
        }
    }

    var firstComponentAscending: Bool? { ascending.first }

    func compare(_ a: SortKey, _ b: SortKey) -> Int {
        for i in comparators.indices {
            let c = SortComparison.compare(a[i], b[i], comparators[i])
            if c != 0 { return ascending[i] ? c : -c }
        }
        return 0
    }

    /// A column decoded untyped, as the key path's type.
    static func typed(_ v: Value, _ terminal: KeyTerminal) -> Value {
        switch (terminal, v) {
        case (_, .null): return .null
        case (.object(let entity), .integer(let n)): return .object(ObjectID(entity: entity, number: n))
        case (.attribute(_, .boolean), .integer(let i)): return .bool(i != 0)
        case (.attribute(_, .date), .integer(let i)): return .date(Double(i))
        case (.attribute(_, .date), .double(let d)): return .date(d)
        case (.attribute(_, .double), .integer(let i)): return .double(Double(i))
        // Not integral (column affinity converted the others): a plain client's, as stored.
        case (.attribute(_, .integer), .double(let d)): return .double(d)
        case (.attribute(_, .uuid), .string(let s)): return .uuid(s)
        default: return v
        }
    }
}
