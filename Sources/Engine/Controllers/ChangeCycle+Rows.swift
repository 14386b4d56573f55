import Model

/// The row notifications of a cycle, collected before they are put in wire order.
struct RowChanges {
    var deletes: [(IndexPath, ObjectID)] = []
    var inserts: [(IndexPath, ObjectID)] = []
    var moves: [(IndexPath, IndexPath, ObjectID)] = []
    var updates: [(IndexPath, IndexPath, ObjectID)] = []

    var isEmpty: Bool { deletes.isEmpty && inserts.isEmpty && moves.isEmpty && updates.isEmpty }
}

extension FetchedResultsController {
    /// Unchanged rows pushed out of the fetchOffset/fetchLimit window (deletes at their old
    /// paths, recorded as edge rows) or into it (inserts at their new paths).
    func windowEdgeChanges(_ old: OldPositions, _ new: inout NewPositions, into rows: inout RowChanges) {
        let oldWindow = old.windowStart..<old.windowEnd
        let newWindow = new.windowStart..<new.windowEnd
        for u in indices(in: oldWindow, notIn: newWindow) {
            guard let edge = old.edges[u], let path = edge.oldPath else {
                preconditionFailure("edge row \(u) was not recorded")
            }
            rows.deletes.append((path, ObjectID(entity: entity, number: edge.id)))
        }
        let now = results
        for u in indices(in: newWindow, notIn: oldWindow) {
            let rank = rankOfUnchanged(u, new.changedRanks)
            let (key, id) = now.rows.select(rank)
            let path = now.indexPath(rank: rank, key: key, firstSection: new.firstSection) { k in
                cachedStart(&new.sectionStarts, k, in: now)
            }
            guard let path else { preconditionFailure("entering row \(id) is not visible") }
            rows.inserts.append((path, ObjectID(entity: entity, number: id)))
        }
    }

    /// Sections that appeared or disappeared among the visible rows.
    func sectionChanges(_ old: OldPositions, _ new: NewPositions) -> [ControllerEvent] {
        var events: [ControllerEvent] = []
        for (name, key) in old.sectionKeys {
            let before = old.sections[name] ?? nil
            let after = results.visibleSection(key, firstSection: new.firstSection)
            if let before, after == nil { events.append(.section(.delete, index: before.index, before.info)) }
            if before == nil, let after { events.append(.section(.insert, index: after.index, after.info)) }
        }
        return events
    }

    /// Sorts the changed rows into deletes, inserts, moves and updates. Survivors whose
    /// section and gap (unchanged survivors before them) are the same before and after may
    /// stay in place (`fewestMoves`); the others move.
    func classifyChangedRows(
        _ affected: [AffectedRow], _ old: OldPositions, _ new: NewPositions,
        into rows: inout RowChanges
    ) {
        let low = max(old.windowStart, new.windowStart)
        let high = min(old.windowEnd, new.windowEnd)
        let now = results
        var candidates: [StayCandidate] = []
        candidates.reserveCapacity(affected.count)
        for i in affected.indices {
            switch (affected[i].oldPath, affected[i].newPath) {
            case (let oldPath?, nil): rows.deletes.append((oldPath, affected[i].id))
            case (nil, let newPath?): rows.inserts.append((newPath, affected[i].id))
            case (let oldPath?, let newPath?):
                let oldRank = affected[i].oldRank!
                let newRank = affected[i].newRank!
                let gapOld = min(max(unchangedBefore(oldRank, old.changedRanks), low), high)
                let gapNew = min(max(unchangedBefore(newRank, new.changedRanks), low), high)
                if gapOld != gapNew
                    || (now.sectioned && now.sectionName(affected[i].oldKey!) != now.sectionName(affected[i].newKey!))
                {
                    rows.moves.append((oldPath, newPath, affected[i].id))
                } else {
                    candidates.append(StayCandidate(gap: gapNew, newRank: newRank, index: i))
                }
            case (nil, nil): break
            }
        }
        candidates.sort { $0.newRank < $1.newRank }
        fewestMoves(candidates, affected, into: &rows)
    }

    /// The candidates to stay, sorted by new rank, fall in one run per gap (the gap grows
    /// with the new rank); each run keeps its earliest longest increasing run of old ranks
    /// as updates and moves the rest (protocol.md §10.4).
    func fewestMoves(_ candidates: [StayCandidate], _ affected: [AffectedRow], into rows: inout RowChanges) {
        var start = 0
        while start < candidates.count {
            var end = start + 1
            while end < candidates.count && candidates[end].gap == candidates[start].gap { end += 1 }
            var stays = [Bool](repeating: end - start == 1, count: end - start)
            if end - start > 1 {
                let oldRanks = candidates[start..<end].map { affected[$0.index].oldRank! }
                for j in earliestLongestIncreasing(oldRanks) { stays[j] = true }
            }
            for (j, c) in candidates[start..<end].enumerated() {
                let change = (affected[c.index].oldPath!, affected[c.index].newPath!, affected[c.index].id)
                if stays[j] { rows.updates.append(change) } else { rows.moves.append(change) }
            }
            start = end
        }
    }
}

/// A changed row that may keep its place: same section and gap before and after.
struct StayCandidate {
    let gap: Int
    let newRank: Int
    let index: Int
}
