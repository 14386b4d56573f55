import Model

/// What a compiled FetchRequest gives the store, contexts and controllers.
public struct CompiledRequest: Sendable {
    public let request: FetchRequest
    /// TRUEPREDICATE when `request.predicate` is nil.
    public let filter: any ObjectFilter
    /// The section component first when `sectionNameKeyPath` is set.
    public let ordering: any ObjectOrdering
    public let sectionNameKeyPath: String?
    /// Relationship paths read by the filter or the ordering, without repeats.
    public var relationshipPaths: [[String]] {
        var seen = Set<[String]>()
        return (filter.relationshipPaths + ordering.relationshipPaths).filter { seen.insert($0).inserted }
    }
}
