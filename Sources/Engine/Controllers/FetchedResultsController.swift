import Model
import Predicates

/// A live query over one context: the engine side of NSFetchedResultsController.
///
/// Holds only `(key, id number)` per matching object (see `Results`); object values are
/// read from the source when needed. `apply(_:)` turns each change cycle of the context
/// into the notifications protocol.md §10 defines, in wire order.
public final class FetchedResultsController {
    public let name: String
    public let source: any ControllerSource
    // The request's parts change only with `setRequest` (SetRequest.swift).
    public internal(set) var filter: any ObjectFilter
    public internal(set) var ordering: any ObjectOrdering
    public internal(set) var sectionNameKeyPath: String?
    public internal(set) var fetchLimit: Int?
    public internal(set) var fetchOffset: Int
    /// The compiled request the controller was made from (or last set to); nil when it was
    /// made from a filter and an ordering.
    public internal(set) var request: CompiledRequest?
    var results: Results
    var tracer: DependencyTracer
    /// `ownReadKeys()` of the current request, once asked (`adopt` forgets it).
    var readKeys: Set<String>??

    /// `ordering` must carry the section component first when `sectionNameKeyPath` is set.
    /// `model` resolves the relationship paths the filter and ordering read.
    public init(
        name: String, source: any ControllerSource, filter: any ObjectFilter, ordering: any ObjectOrdering,
        sectionNameKeyPath: String? = nil, fetchLimit: Int? = nil, fetchOffset: Int = 0, model: ObjectModel
    ) {
        self.name = name
        self.source = source
        self.filter = filter
        self.ordering = ordering
        self.sectionNameKeyPath = sectionNameKeyPath
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        let width = ordering.keyColumns(alias: "t").count
        results = Results(
            ordering: ordering, keyWidth: width, sectioned: sectionNameKeyPath != nil,
            offset: fetchOffset, limit: fetchLimit)
        tracer = DependencyTracer(
            entity: filter.entity, paths: filter.relationshipPaths + ordering.relationshipPaths,
            model: model)
    }

    /// A controller for a compiled request (its limit and offset included).
    public convenience init(name: String, source: any ControllerSource, request: CompiledRequest, model: ObjectModel) {
        self.init(
            name: name, source: source, filter: request.filter, ordering: request.ordering,
            sectionNameKeyPath: request.sectionNameKeyPath, fetchLimit: request.request.fetchLimit,
            fetchOffset: request.request.fetchOffset, model: model)
        self.request = request
    }

    public var entity: String { filter.entity }

    /// Tests force the rebuild path on (true) or off (false); nil lets the size decide.
    var rebuildOverride: Bool?
    /// Measured costs that choose between incremental cycles and rebuilds.
    var cost = CycleCost()
    /// Whether the last cycle rebuilt (for measurements).
    var lastCycleRebuilt = false
    /// The key `borrowScratchKey` lends, kept from one cycle to the next.
    private var spareKey: SortKey = []

    /// A key of `width` components to load tree entries into, for `returnScratchKey` when
    /// done: the controller's spare one, so a cycle allocates none (each was a malloc and a
    /// generic metadata lookup, for a cycle of one change a tenth of its tree work).
    func borrowScratchKey(width: Int) -> SortKey {
        var key: SortKey = []
        swap(&key, &spareKey)
        return key.count == width ? key : SortKey(repeating: .null, count: width)
    }

    func returnScratchKey(_ key: SortKey) { spareKey = key }

    /// How many setRequest calls filtered the held rows instead of querying (for tests).
    public internal(set) var narrowedRequests = 0
    /// A cycle needed a fresh fetch and could not make it (`CycleNotifications.failed`): the
    /// results are still those before that cycle, which its client holds, but they may be
    /// behind the context. The next cycle fetches again, whatever it changed, and reports
    /// the difference; so do `performFetch` and `setRequest`.
    public internal(set) var needsRefetch = false

    /// Loads the whole match set from the source (keys only) in one sorted pass.
    public func performFetch() throws(EngineError) {
        let started = CycleCost.now()
        results = try fetchResults()
        cost.recordFetch(nanos: CycleCost.now() - started, rows: results.count)
        needsRefetch = false
    }

    /// Fresh results from the source: its rows stream straight into the tree's leaves.
    /// (The source promises the tree's order; the loader checks it and sorts if broken.)
    func fetchResults() throws(EngineError) -> Results {
        var loader = Results.Loader(results)
        try source.forEachKey(filter: filter, ordering: ordering) { number, key in loader.append(key, number) }
        return loader.finish()
    }

    // MARK: Reading the results

    /// Visible rows across all sections.
    public var count: Int { results.visibleCount }

    public var sections: [SectionInfo] { results.visibleSections().map(\.info) }

    /// Ids of the rows `[offset, offset + limit)` of section `section`.
    public func ids(section: Int, offset: Int = 0, limit: Int? = nil) throws(EngineError) -> [ObjectID] {
        let all = results.visibleSections()
        guard section >= 0, section < all.count else {
            throw EngineError(
                .invalidValue, "no section \(section)", [("key", "section"), ("section", .int(Int64(section)))])
        }
        guard offset >= 0, (limit ?? 0) >= 0 else {
            throw EngineError(
                .invalidValue, "offset and limit must not be negative", [("key", offset < 0 ? "offset" : "limit")])
        }
        let ranks = all[section].ranks
        let lo = min(ranks.upperBound, ranks.lowerBound + offset)
        let hi = limit.map { min(ranks.upperBound, lo + $0) } ?? ranks.upperBound
        return results.rows.ids(in: lo..<hi).map { ObjectID(entity: entity, number: $0) }
    }

    public func object(at indexPath: IndexPath) throws(EngineError) -> ObjectID {
        let all = results.visibleSections()
        guard indexPath.section >= 0, indexPath.section < all.count, indexPath.row >= 0,
            indexPath.row < all[indexPath.section].ranks.count
        else {
            throw EngineError(
                .invalidValue, "no row at \(indexPath)",
                [
                    ("key", "indexPath"),
                    ("indexPath", .list([.int(Int64(indexPath.section)), .int(Int64(indexPath.row))])),
                ])
        }
        let rank = all[indexPath.section].ranks.lowerBound + indexPath.row
        return ObjectID(entity: entity, number: results.rows.id(at: rank))
    }

    /// Where the object is among the visible rows; nil when it is not one of them. The key
    /// comes from the object's current values in the source, then its rank from the tree.
    public func indexPath(of id: ObjectID) -> IndexPath? {
        guard id.entity == entity, let values = source.snapshot(of: id) else { return nil }
        let key = ordering.key(of: id, values, in: source)
        guard let rank = results.rows.find(key, id: id.number) else { return nil }
        return results.indexPath(rank: rank, key: key, firstSection: results.firstVisibleSectionRank()) {
            results.sectionRange($0).lowerBound
        }
    }

    /// The index titles of the visible sections in order, each once.
    public var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return sections.map(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// Core Data's `section(forSectionIndexTitle:at:)`: the first section whose index title
    /// is `title`; when none has it, the section of the title at `index` in
    /// `sectionIndexTitles` (as a table's index bar asks).
    public func section(forIndexTitle title: String, at index: Int) throws(EngineError) -> Int {
        let infos = sections
        if let s = infos.firstIndex(where: { $0.indexTitle == title }) { return s }
        let titles = sectionIndexTitles
        guard index >= 0, index < titles.count, let s = infos.firstIndex(where: { $0.indexTitle == titles[index] })
        else {
            throw EngineError(
                .invalidValue, "no section for index title \"\(title)\" at \(index)",
                [("key", "title"), ("title", .string(title)), ("index", .int(Int64(index)))])
        }
        return s
    }
}
