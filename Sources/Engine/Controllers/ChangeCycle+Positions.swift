import Model

/// The results as a cycle found them, recorded before the tree changes.
struct OldPositions {
    /// `firstVisibleSectionRank()` before the cycle.
    let firstSection: Int
    /// The old ranks of the changed rows, ascending.
    let changedRanks: [Int]
    /// Whether fetchOffset or fetchLimit cut the rows (unchanged rows can cross the edges).
    let windowed: Bool
    /// The window in unchanged-row indices: unchanged rows before its start and its end.
    let windowStart: Int, windowEnd: Int
    /// Unchanged rows near the window's edges by unchanged-row index (windowed only).
    let edges: [Int: EdgeRow]
    /// A key of every section a changed or edge row was in or joins, by section name.
    let sectionKeys: [String: SortKey]
    /// Those sections as they were visible before (nil when hidden or absent).
    let sections: [String: (index: Int, info: SectionInfo)?]
}

/// The results after the tree changed.
struct NewPositions {
    let firstSection: Int
    /// The new ranks of the changed rows, ascending.
    let changedRanks: [Int]
    let windowStart: Int, windowEnd: Int
    /// Section starts found so far, by section name (rows entering the window add some).
    var sectionStarts: [String: Int]
}

extension FetchedResultsController {
    /// Phase 1, before the tree changes: each changed row's old index path, the unchanged
    /// rows near the window's edges, and the sections the cycle may add or remove.
    func recordOldPositions(_ affected: inout [AffectedRow]) -> OldPositions {
        let old = results
        let firstOld = old.firstVisibleSectionRank()
        var starts: [String: Int] = [:]
        for i in affected.indices {
            guard let rank = affected[i].oldRank, let key = affected[i].oldKey else { continue }
            affected[i].oldPath = old.indexPath(rank: rank, key: key, firstSection: firstOld) { k in
                cachedStart(&starts, k, in: old)
            }
        }
        let changedOld = affected.compactMap(\.oldRank).sorted()
        let windowed = old.offset > 0 || old.limit != Int.max
        let a1 = unchangedBefore(old.offset, changedOld)
        let b1 = unchangedBefore(old.windowEnd, changedOld)
        var edges: [Int: EdgeRow] = [:]
        if windowed {
            let margin = 2 * affected.count + 1
            let unchangedCount = old.count - changedOld.count
            // An offset past the end (fewer rows than fetchOffset) leaves nothing to record there.
            for (lo, hi) in [(a1 - margin, a1 + margin), (b1 - margin, b1 + margin)] {
                let start = max(0, lo)
                let end = min(unchangedCount, hi)
                if start < end { recordEdges(start..<end, changedOld, firstOld, &starts, into: &edges) }
            }
        }
        let sectionKeys = old.sectioned ? sectionKeysOf(affected, edges) : [:]
        let sections = sectionKeys.mapValues { old.visibleSection($0, firstSection: firstOld) }
        return OldPositions(
            firstSection: firstOld, changedRanks: changedOld, windowed: windowed, windowStart: a1,
            windowEnd: b1, edges: edges, sectionKeys: sectionKeys, sections: sections)
    }

    /// One key per section that a changed row was in or joins, or an edge row is in.
    func sectionKeysOf(_ affected: [AffectedRow], _ edges: [Int: EdgeRow]) -> [String: SortKey] {
        var keys: [String: SortKey] = [:]
        for row in affected {
            for key in [row.oldRank == nil ? nil : row.oldKey, row.newKey] {
                if let key { keys[results.sectionName(key)] = key }
            }
        }
        for edge in edges.values { keys[results.sectionName(edge.key)] = edge.key }
        return keys
    }

    /// Phase 3, after the tree changed: the index paths of the rows in it now (`entering`).
    func locateNewPositions(_ affected: inout [AffectedRow], _ entering: [Int]) -> NewPositions {
        let now = results
        let firstNew = now.firstVisibleSectionRank()
        var starts: [String: Int] = [:]
        for i in entering {
            affected[i].newPath = now.indexPath(
                rank: affected[i].newRank!, key: affected[i].newKey!,
                firstSection: firstNew
            ) { k in cachedStart(&starts, k, in: now) }
        }
        let changedNew = affected.compactMap(\.newRank).sorted()
        return NewPositions(
            firstSection: firstNew, changedRanks: changedNew,
            windowStart: unchangedBefore(now.offset, changedNew),
            windowEnd: unchangedBefore(now.windowEnd, changedNew), sectionStarts: starts)
    }
}
