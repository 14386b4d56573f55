import Model

/// Rank arithmetic of a cycle: unchanged rows counted past the changed ones, window edges.
extension FetchedResultsController {
    /// The integers of `r` that are not in `s`: at most one run below `s`, one above.
    func indices(in r: Range<Int>, notIn s: Range<Int>) -> [Int] {
        func clamp(_ x: Int) -> Int { min(max(x, r.lowerBound), r.upperBound) }
        return Array(r.lowerBound..<clamp(s.lowerBound)) + Array(clamp(s.upperBound)..<r.upperBound)
    }

    /// `results` is passed in (a local copy made once per phase): reading the stored
    /// property from inside an index-path closure would copy the results on every call.
    func cachedStart(_ cache: inout [String: Int], _ key: SortKey, in results: Results) -> Int {
        let name = results.sectionName(key)
        if let start = cache[name] { return start }
        let start = results.sectionRange(key).lowerBound
        cache[name] = start
        return start
    }

    /// Unchanged rows at ranks below `rank`, given the sorted ranks of the changed rows.
    func unchangedBefore(_ rank: Int, _ changed: [Int]) -> Int {
        var lo = 0
        var hi = changed.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if changed[mid] < rank { lo = mid + 1 } else { hi = mid }
        }
        return rank - lo
    }

    /// The rank of the `u`-th unchanged row, given the sorted ranks of the changed rows.
    func rankOfUnchanged(_ u: Int, _ changed: [Int]) -> Int {
        var rank = u
        for c in changed { if c <= rank { rank += 1 } else { break } }
        return rank
    }

    /// Records the unchanged rows with unchanged-indices in `range`, with old index paths.
    func recordEdges(
        _ range: Range<Int>, _ changed: [Int], _ firstOld: Int, _ starts: inout [String: Int],
        into edges: inout [Int: EdgeRow]
    ) {
        let changedSet = Set(changed)
        var rank = rankOfUnchanged(range.lowerBound, changed)
        var u = range.lowerBound
        while u < range.upperBound {
            if !changedSet.contains(rank) {
                if edges[u] == nil {
                    let (key, id) = results.rows.select(rank)
                    let path = results.indexPath(rank: rank, key: key, firstSection: firstOld) { k in
                        cachedStart(&starts, k, in: results)
                    }
                    edges[u] = EdgeRow(id: id, key: key, oldPath: path)
                }
                u += 1
            }
            rank += 1
        }
    }
}
