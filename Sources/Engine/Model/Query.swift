/// The contracts between the predicate compiler and its users (contexts and controllers).
///
/// Predicates implements `ObjectFilter` and `ObjectOrdering`; contexts run them as SQL for a
/// fetch and in memory over pending changes; controllers run them in memory on every change
/// cycle. Both paths share one implementation of every comparison, so they always agree.

/// A SQL expression with its bound values, in order of the `?` placeholders.
public struct SQLFragment: Sendable, Equatable {
    public var text: String
    public var bindings: [Value]

    public init(_ text: String, _ bindings: [Value] = []) {
        self.text = text
        self.bindings = bindings
    }
}

/// The objects as some context sees them, for following key paths (`author.name`,
/// to-many collections) during in-memory evaluation.
public protocol ObjectView {
    /// The object's current values in this view; nil when it does not exist here.
    func snapshot(of id: ObjectID) -> Snapshot?
    /// The ids whose to-one relationship `relationship` of entity `entity` points at `target`
    /// (the to-many side of a one-to-many, read backwards), ascending by number.
    func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID]
}

/// A compiled predicate on one entity.
public protocol ObjectFilter: Sendable {
    var entity: String { get }
    /// A boolean SQL expression over the entity's table, which the query names `alias`.
    func sql(alias: String) -> SQLFragment
    /// The same predicate, evaluated on one object's values.
    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool
    /// The relationship paths the predicate reads through (each a list of relationship
    /// names from the entity), so a change to a related object can be traced back.
    var relationshipPaths: [[String]] { get }
    /// The object's own attributes the predicate reads, when it reads nothing else (no
    /// relationship, no SELF); nil when unknown. Lets a caller that holds those values (a
    /// controller's sort keys) evaluate it without reading the object.
    var readAttributes: Set<String>? { get }
    /// When the predicate is one comparison of one own attribute with constants: that
    /// attribute and the comparison, for a caller that holds the value alone.
    var attributeTest: (attribute: String, test: @Sendable (Value) -> Bool)? { get }
}

extension ObjectFilter {
    public var readAttributes: Set<String>? { nil }
    public var attributeTest: (attribute: String, test: @Sendable (Value) -> Bool)? { nil }
}

/// NSExpressionDescription's functions (dictionary fetches).
public enum AggregateFunction: String, Sendable, CaseIterable {
    case count, sum, min, max, average
}

/// The key of one object under an ordering: one value per sort descriptor.
public typealias SortKey = [Value]

/// Compiled sort descriptors on one entity (with a section key path first, when set).
///
/// A key holds raw values (not collation keys), so its first component is the section
/// value a controller turns into a section name. When a section key path is set and the
/// first descriptor is not on it, the section component sorts ascending with `compare`.
public protocol ObjectOrdering: Sendable {
    var entity: String { get }
    /// `ORDER BY` terms (comma-separated, without the final id tie-break) over `alias`.
    func orderBy(alias: String) -> SQLFragment
    /// The SQL expressions of the sort keys, selected for bulk loads in the same order.
    func keyColumns(alias: String) -> [SQLFragment]
    /// An object's key, from its values.
    func key(of id: ObjectID, _ values: Snapshot, in view: ObjectView) -> SortKey
    /// An object's key from the row `keyColumns` selected, each column decoded untyped
    /// (`ValueEncoding.untyped`: INTEGER -> .integer, REAL -> .double, TEXT -> .string,
    /// BLOB -> .binary, NULL -> .null). Equal to `key(of:)` on the same object's values.
    func key(fromColumns columns: [Value]) -> SortKey
    /// `key(fromColumns:)` in place: the untyped columns in `key` become the key. A bulk
    /// fetch decodes every row into one reused buffer this way, allocating nothing per row.
    func decodeKey(_ key: inout SortKey)
    /// Three-way comparison of two keys under the descriptors (ascending/descending applied,
    /// nil first when ascending): negative, zero or positive. Ties are broken by the caller
    /// with the id number.
    func compare(_ a: SortKey, _ b: SortKey) -> Int
    var relationshipPaths: [[String]] { get }
    /// Per key component, the object's own attribute it is (raw value), or nil (a key path
    /// through a relationship); empty when unknown.
    var keyAttributes: [String?] { get }
    /// Whether the first key component sorts ascending; nil when unknown. Two integers in it
    /// then compare as numbers whatever the comparator, so a caller comparing many keys can
    /// settle most pairs without `compare`.
    var firstComponentAscending: Bool? { get }
}

extension ObjectOrdering {
    public func decodeKey(_ key: inout SortKey) { key = self.key(fromColumns: key) }
    public var keyAttributes: [String?] { [] }
    public var firstComponentAscending: Bool? { nil }

    /// `compare` as a closure for code that compares many keys (a tree, a merge): taken on
    /// the concrete type, so no existential is copied per call, and keys whose first
    /// components are different integers are settled by those without `compare`.
    public var keyComparison: (SortKey, SortKey) -> Int {
        guard let ascending = firstComponentAscending else { return { self.compare($0, $1) } }
        return { a, b in
            if case .integer(let x) = a[0], case .integer(let y) = b[0], x != y {
                return (x < y) == ascending ? -1 : 1
            }
            return self.compare(a, b)
        }
    }
}
