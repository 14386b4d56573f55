import Model

/// A controller's match set and the positions derived from it.
///
/// `rows` holds every matching object (not only the fetchLimit window) as `(key, id number)`;
/// `sections` holds one entry per distinct section value (any row's key stands for its
/// section, compared on the first component only), so section ranks are O(log #sections)
/// and section boundaries in `rows` are O(log n). The visible rows are the global ranks
/// `[offset, offset + limit)`.
struct Results {
    let ordering: any ObjectOrdering
    let sectioned: Bool
    let offset: Int
    let limit: Int
    var rows: CountedBTree
    var sections: CountedBTree

    init(ordering: any ObjectOrdering, keyWidth: Int, sectioned: Bool, offset: Int, limit: Int?) {
        self.ordering = ordering
        self.sectioned = sectioned
        self.offset = max(0, offset)
        self.limit = limit.map { max(0, $0) } ?? Int.max
        rows = CountedBTree(
            keyWidth: keyWidth, integersFirst: ordering.firstComponentAscending, compare: ordering.keyComparison)
        sections = CountedBTree(keyWidth: keyWidth, leafCapacity: 32, innerCapacity: 32) {
            Results.sectionOrder(ordering, $0, $1)
        }
    }

    /// Empty results with the same ordering, sections and window (for a rebuild).
    func emptyCopy() -> Results {
        Results(
            ordering: ordering, keyWidth: rows.width, sectioned: sectioned, offset: offset,
            limit: limit == Int.max ? nil : limit)
    }

    /// Sign of `a`'s section against `b`'s: the ordering compares `a` with `a` carrying
    /// `b`'s first component, so only the first component can differ.
    static func sectionOrder(_ ordering: any ObjectOrdering, _ a: SortKey, _ b: SortKey) -> Int {
        var probe = a
        probe[0] = b[0]
        return ordering.compare(a, probe)
    }

    var count: Int { rows.count }
    /// End of the visible ranks.
    var windowEnd: Int { offset >= rows.count ? offset : (rows.count - offset <= limit ? rows.count : offset + limit) }
    var visibleCount: Int { max(0, windowEnd - offset) }
    func isVisible(_ rank: Int) -> Bool { rank >= offset && rank < windowEnd }

    // MARK: Loading and mutation

    mutating func load(_ sorted: [(SortKey, Int64)]) {
        var loader = Loader(self)
        for (key, id) in sorted { loader.append(key, id) }
        self = loader.finish()
    }

    /// Fills empty results shaped like a given one from rows handed over in order (see
    /// `BulkLoader`): the rows' tree, and one entry per section from its first row.
    struct Loader {
        private var results: Results
        private var rows: BulkLoader
        private var sections: BulkLoader
        /// The last section's first key, and a probe that carries it with another row's
        /// first component (`sectionOrder` without a copy per row).
        private var section: SortKey = []
        private var probe: SortKey = []

        init(_ shape: Results) {
            results = shape.emptyCopy()
            rows = BulkLoader(like: results.rows)
            sections = BulkLoader(like: results.sections)
        }

        mutating func append(_ key: SortKey, _ id: Int64) {
            rows.append(key, id)
            guard results.sectioned else { return }
            if rows.count > 1 {
                probe[0] = key[0]
                let c = results.ordering.compare(section, probe)
                probe[0] = section[0]
                if c == 0 { return }
            }
            sections.append(key, 0)
            if section.isEmpty {
                section = key
                probe = key
                return
            }
            for c in key.indices {
                section[c] = key[c]
                probe[c] = key[c]
            }
        }

        consuming func finish() -> Results {
            guard rows.inOrder else {
                // Sections come from the rows in order: sort them (the loader does) and load again.
                var again = Loader(results)
                let sorted = rows.finish()
                sorted.forEach(in: 0..<sorted.count) { key, id in again.append(key, id) }
                return again.finish()
            }
            results.rows = rows.finish()
            if results.sectioned { results.sections = sections.finish() }
            return results
        }
    }

    /// Inserts the row and returns its rank; its section comes with its first row.
    @discardableResult
    mutating func insert(_ key: SortKey, _ id: Int64) -> Int {
        var scratch = SortKey(repeating: .null, count: rows.width)
        return insert(key, id, scratch: &scratch)
    }

    /// `insert` with a caller's key buffer of the rows' width, for a run of inserts.
    @discardableResult
    mutating func insert(_ key: SortKey, _ id: Int64, scratch: inout SortKey) -> Int {
        let rank = rows.insert(key, id: id, scratch: &scratch)
        if sectioned, sections.find(key, id: 0) == nil { sections.insert(key, id: 0) }
        return rank
    }

    /// Removes the row at `rank`, whose key is `key`; its section goes with its last row.
    /// The key is read only with sections: a big cycle copies none without them.
    mutating func remove(at rank: Int, key: @autoclosure () -> SortKey) {
        rows.remove(at: rank)
        guard sectioned else { return }
        let key = key()
        if sectionRange(key).isEmpty { sections.remove(key, id: 0) }
    }

    /// Removes the row; its section goes when it was the section's last row.
    @discardableResult
    mutating func remove(_ key: SortKey, _ id: Int64) -> Bool {
        guard rows.remove(key, id: id) != nil else { return false }
        if sectioned {
            let range = sectionRange(key)
            if range.isEmpty { sections.remove(key, id: 0) }
        }
        return true
    }

    // MARK: Positions

    /// Global ranks of the rows in `key`'s section.
    func sectionRange(_ key: SortKey) -> Range<Int> {
        guard sectioned else { return 0..<rows.count }
        let start = rows.firstRank { k, _ in Results.sectionOrder(ordering, k, key) >= 0 }
        let end = rows.firstRank { k, _ in Results.sectionOrder(ordering, k, key) > 0 }
        return start..<end
    }

    /// The global section rank of the first visible row's section (0 when nothing is visible).
    func firstVisibleSectionRank() -> Int {
        guard sectioned, visibleCount > 0 else { return 0 }
        return sections.rank(of: rows.select(offset).key, id: 0)
    }

    /// The visible index path of the row at global `rank` with `key`, or nil when hidden.
    /// `firstSection` is `firstVisibleSectionRank()`, passed in so a cycle computes it once.
    func indexPath(rank: Int, key: SortKey, firstSection: Int, sectionStart: (SortKey) -> Int) -> IndexPath? {
        guard isVisible(rank) else { return nil }
        guard sectioned else { return IndexPath(section: 0, row: rank - offset) }
        let start = sectionStart(key)
        return IndexPath(section: sections.rank(of: key, id: 0) - firstSection, row: rank - max(offset, start))
    }

    /// The visible part of `key`'s section: its visible index and info; nil when hidden.
    func visibleSection(_ key: SortKey, firstSection: Int) -> (index: Int, info: SectionInfo)? {
        let range = sectionRange(key)
        let lo = max(range.lowerBound, offset)
        let hi = min(range.upperBound, windowEnd)
        guard lo < hi else { return nil }
        let index = sectioned ? sections.rank(of: key, id: 0) - firstSection : 0
        return (index, SectionInfo(name: sectionName(key), numberOfObjects: hi - lo))
    }

    func sectionName(_ key: SortKey) -> String { sectioned ? SectionInfo.name(for: key[0]) : "" }

    /// Every visible section in order, with the global rank range of its visible rows.
    func visibleSections() -> [(info: SectionInfo, ranks: Range<Int>)] {
        guard sectioned else {
            return [(SectionInfo(name: "", numberOfObjects: visibleCount), offset..<max(offset, windowEnd))]
        }
        guard visibleCount > 0 else { return [] }
        var result: [(SectionInfo, Range<Int>)] = []
        var rank = offset
        while rank < windowEnd {
            let key = rows.select(rank).key
            let end = min(sectionRange(key).upperBound, windowEnd)
            result.append((SectionInfo(name: sectionName(key), numberOfObjects: end - rank), rank..<end))
            rank = end
        }
        return result
    }
}
