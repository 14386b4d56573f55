import Model

/// How strings compare under a sort descriptor; raw values are the wire's spellings.
public enum Comparator: String, Sendable, CaseIterable, Hashable {
    /// Unicode scalar order for strings, numeric for numbers.
    case compare
    case caseInsensitiveCompare
    /// Case- and diacritic-insensitive, digit runs compared as numbers ("file2" < "file10").
    case localizedStandardCompare
}

public struct SortDescriptor: Sendable, Hashable {
    public var key: String
    public var ascending: Bool
    public var comparator: Comparator

    public init(key: String, ascending: Bool = true, comparator: Comparator = .compare) {
        self.key = key
        self.ascending = ascending
        self.comparator = comparator
    }
}

/// A fetch request as the wire describes it, before compilation.
public struct FetchRequest: Sendable, Hashable {
    public var entity: String
    /// NSPredicate format syntax; nil means every object.
    public var predicate: String?
    public var variables: [String: Value]
    /// List values for `IN $name` and `BETWEEN $name` (the wire's JSON arrays). A variable
    /// holding `.objects` ids also works as a list.
    public var listVariables: [String: [Value]]
    public var sortDescriptors: [SortDescriptor]
    public var fetchLimit: Int?
    public var fetchOffset: Int

    public init(
        entity: String, predicate: String? = nil, variables: [String: Value] = [:],
        listVariables: [String: [Value]] = [:], sortDescriptors: [SortDescriptor] = [], fetchLimit: Int? = nil,
        fetchOffset: Int = 0
    ) {
        self.entity = entity
        self.predicate = predicate
        self.variables = variables
        self.listVariables = listVariables
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}
