import Model
import Store

/// What a save wrote (or pushed into the parent), by kind.
public struct SaveCounts: Equatable, Sendable {
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

extension Context {
    /// Saves: a child pushes its changes into its parent (a cycle there); a root validates,
    /// resolves conflicts under its merge policy and writes the store in one transaction,
    /// then the other roots that merge take the saved changes (a cycle in each). On any
    /// failure nothing is written and this context keeps its changes.
    @discardableResult
    public func save() throws(EngineError) -> SaveCounts {
        processPendingChanges()
        if let parent { return try push(into: parent) }
        return try writeToStore()
    }

    /// Discards every unsaved change (a change cycle).
    public func rollback() throws(EngineError) {
        undoStack?.clear()
        try discardPending()
        processPendingChanges(.rollback)
    }

    // MARK: Child save

    private func push(into parent: Context) throws(EngineError) -> SaveCounts {
        var counts = SaveCounts()
        let entries = sortedPending()
        for (id, p) in entries {
            if p.isInsert {
                try parent.setPending(id, p.values, isNew: true)
                counts.inserted += 1
            } else if p.isDelete {
                guard try parent.object(id) != nil else { continue }
                try parent.setPending(id, nil)
                counts.deleted += 1
            } else if let values = p.values {
                // Only the keys this context changed: the parent's own later changes to the
                // other keys survive.
                guard var merged = try parent.object(id) else { continue }
                for key in p.changedKeys { merged[key] = values[key] }
                try parent.setPending(id, merged)
                counts.updated += 1
            }
        }
        try discardPending()
        processPendingChanges(.save)
        parent.processPendingChanges(.save)
        return counts
    }

    // MARK: Root save

    /// Inside one write transaction (BEGIN IMMEDIATE): versions are read under the write
    /// lock, so another process's commit since this context read an object goes through the
    /// merge policy. A lock that stays taken is `storeBusy`; then, as on any failure, nothing
    /// is written and the context is as before.
    private func writeToStore() throws(EngineError) -> SaveCounts {
        guard pending.values.contains(where: \.isEffective) else { return try writeLocked() }
        try beginWrite()
        defer { graph?.settleAfterWrite() }
        do throws(EngineError) {
            let counts = try writeLocked()
            try store.commitWrite()
            return counts
        } catch {
            store.rollbackWrite()
            throw error
        }
    }

    /// The write transaction, with what other processes committed since the last merge
    /// merged first (ObjectGraph+Snapshot.swift).
    private func beginWrite() throws(EngineError) {
        guard let graph else { return try store.beginWrite(author: transactionAuthor) }
        try graph.beginWrite(author: transactionAuthor)
    }

    private func writeLocked() throws(EngineError) -> SaveCounts {
        let entries = sortedPending()
        try validate(entries)
        let (resolved, conflicts) = try resolveConflicts(entries)
        var batch = StoreBatch()
        var counts = SaveCounts()
        // Objects the merge policy settled otherwise than this context showed them.
        var settled: [(ObjectID, Snapshot?)] = []
        // What the updates change: an unconflicted one only the keys this context changed
        // (the stored row is still its base); a settled one may change any.
        var changing: Set<String>? = []
        for (i, (id, write)) in resolved.enumerated() {
            let ours = entries[i].value.values
            // Without a conflict the write is this context's own value: no need to compare.
            let conflicted = entries[i].value.isInsert ? false : conflicts.contains(id)
            switch write {
            case .insert(let v):
                batch.inserts.append((id, v))
                counts.inserted += 1
                if conflicted && v != ours { settled.append((id, v)) }
            case .update(let v):
                batch.updates.append((id, v))
                counts.updated += 1
                if conflicted {
                    changing = nil
                    if v != ours { settled.append((id, v)) }
                } else if let base = entries[i].value.base {
                    // The keys whose value differs from the base (`PendingChange.changedKeys`,
                    // without its sort).
                    for (key, value) in v where base[key] != value { changing?.insert(key) }
                }
            case .delete:
                batch.deletes.append(id)
                counts.deleted += 1
                if ours != nil { settled.append((id, nil)) }
            case .skip:
                settled.append((id, try store.read(id)?.values))
            }
        }
        batch.updatedKeys = changing?.sorted()
        let mergers = (graph?.roots ?? []).filter { $0 !== self && $0.mergesChangesFromParent }
        var written: [ObjectID] = []
        if !mergers.isEmpty {
            // What the merging roots see before the write, for their cycles afterwards. A new
            // object was nowhere before.
            written = batch.inserts.map(\.0) + batch.updates.map(\.0) + batch.deletes
            let finals = Dictionary(
                uniqueKeysWithValues: batch.updates.map { ($0.0, Optional($0.1)) }
                    + batch.deletes.map { ($0, Snapshot?.none) })
            for r in mergers {
                for (id, values) in batch.inserts {
                    r.noteNew(id)
                    // A new object joins the one-to-many sides it points at.
                    for t in r.referencedTargets(values, of: id.entity) { try r.noteCurrent(t) }
                }
                for (id, final) in finals { try r.noteCurrent(id, next: final) }
            }
        }
        // Here, an object the store now holds as this context showed it does not change (nor
        // in the children); only those settled otherwise are noted.
        for (id, final) in settled { try noteCurrent(id, next: final) }
        batch.author = transactionAuthor
        try store.write(batch)
        try store.commitWrite()
        clearPending()
        processPendingChanges(.save)
        for r in mergers {
            try r.rebase(on: written)
            r.processPendingChanges(isBatch ? .batch : .merge)
        }
        return counts
    }

    /// Effective pending changes by entity name, then id number: the order writes go to
    /// SQLite in (appending rows in key order is its fast path). Sorted through integer keys:
    /// comparing ids would compare entity names.
    func sortedPending() -> [(key: ObjectID, value: PendingChange)] {
        // One change (an editor's save) has its order already: the entities' ranks, sorted
        // names in a new dictionary, cost more than the rest of the save's bookkeeping.
        if pending.count == 1, let only = pending.first { return only.value.isEffective ? [only] : [] }
        var rank: [String: UInt64] = [:]
        for (i, name) in model.entities.map(\.name).sorted().enumerated() { rank[name] = UInt64(i) }
        var lastEntity = ""
        var lastRank: UInt64 = 0
        var fits = true
        var keyed: [(UInt64, Dictionary<ObjectID, PendingChange>.Index)] = []
        keyed.reserveCapacity(pending.count)
        var i = pending.startIndex
        while i != pending.endIndex {
            let (id, change) = pending[i]
            if change.isEffective {
                if id.entity != lastEntity {
                    lastEntity = id.entity
                    lastRank = rank[id.entity] ?? 0
                }
                if id.number >= 1 << 47 { fits = false }
                keyed.append((lastRank << 47 | UInt64(truncatingIfNeeded: id.number), i))
            }
            i = pending.index(after: i)
        }
        if fits {
            keyed.sort { $0.0 < $1.0 }
            return keyed.map { pending[$0.1] }
        }
        return keyed.map { pending[$0.1] }.sorted { $0.key < $1.key }
    }

    /// After another root's save of `ids`: pending changes to those objects now stand on the
    /// saved values (keys this context changed keep its values), as Core Data's merge does.
    func rebase(on ids: [ObjectID]) throws(EngineError) {
        for id in ids { try rebaseOnParent(id) }
    }

    // MARK: Validation

    /// Required values present and no reference to an object that is gone.
    private func validate(_ entries: [(key: ObjectID, value: PendingChange)]) throws(EngineError) {
        var errors: [(ObjectID, String, String)] = []
        var last: Entity? = nil
        for (id, p) in entries {
            if last?.name != id.entity { last = model.entity(id.entity) }
            guard let entity = last else { continue }
            if let values = p.values {
                for a in entity.attributes where !a.optional && (values[a.name] ?? .null).isNull {
                    errors.append((id, a.name, "required value missing"))
                }
                for r in entity.relationships {
                    let targets = (values[r.name] ?? .null).objectIDs
                    if !r.optional && targets.isEmpty {
                        errors.append(
                            (id, r.name, r.toMany ? "required relationship is empty" : "required relationship missing"))
                    }
                    for t in targets where try object(t) == nil {
                        errors.append((id, r.name, InvalidValue.missingTarget("\(t)")))
                    }
                }
            } else if let base = p.base {
                // Objects left pointing at a deleted object (a noAction rule), saved or not.
                let derived = Set(model.derivedRelationships(of: id.entity).map(\.name))
                for r in entity.relationships {
                    let targets =
                        derived.contains(r.name) ? try derivedIDs(id, r).sorted() : (base[r.name] ?? .null).objectIDs
                    for t in targets where pending[t] == nil {
                        if let tv = try object(t), (tv[r.inverse] ?? .null).objectIDs.contains(id) {
                            errors.append((t, r.inverse, InvalidValue.missingTarget("\(id)")))
                        }
                    }
                }
            }
        }
        guard !errors.isEmpty else { return }
        errors.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        let list: [EngineError.Detail] = errors.map {
            .record([("id", .string($0.0.description)), ("key", .string($0.1)), ("reason", .string($0.2))])
        }
        throw EngineError(
            .validation, "the save is invalid: \(errors.count) problem(s), nothing was written",
            [("errors", .list(list))])
    }

    // MARK: Conflicts

    enum Write {
        case insert(Snapshot)
        case update(Snapshot)
        case delete
        case skip
    }

    /// The write for each entry, after the merge policy settled objects that another context
    /// saved since this one read them.
    private func resolveConflicts(_ entries: [(key: ObjectID, value: PendingChange)]) throws(EngineError)
        -> ([(ObjectID, Write)], conflicted: Set<ObjectID>)
    {
        var out: [(ObjectID, Write)] = []
        var conflicted: Set<ObjectID> = []
        var conflicts: [EngineError.Detail] = []
        for (id, p) in entries {
            if p.isInsert {
                out.append((id, .insert(p.values ?? [:])))
                continue
            }
            // The stored version alone says that nobody wrote the object since it was read
            // (the usual case); its values are read only when somebody did.
            if let version = try store.version(of: id), version == p.baseVersion {
                out.append((id, p.values.map(Write.update) ?? .delete))
                continue
            }
            let row = try store.read(id)
            guard row?.version != p.baseVersion || row == nil else {
                out.append((id, p.values.map(Write.update) ?? .delete))
                continue
            }
            conflicted.insert(id)
            let ours = p.values
            let theirs = stored(row?.values, of: id.entity)
            let base = p.base ?? [:]
            switch mergePolicy {
            case .error:
                conflicts.append(conflictDetail(id, ours: ours, theirs: theirs, base: base))
            case .overwrite:
                out.append(
                    (id, ours.map { theirs == nil ? .insert($0) : .update($0) } ?? (theirs == nil ? .skip : .delete)))
            case .rollback:
                out.append((id, .skip))
            case .objectTrump:
                guard let ours else {
                    out.append((id, theirs == nil ? .skip : .delete))
                    continue
                }
                guard var merged = theirs else {
                    out.append((id, .insert(ours)))
                    continue
                }
                for key in p.changedKeys { merged[key] = ours[key] }
                out.append((id, .update(merged)))
            case .storeTrump:
                guard let ours, let theirs else {
                    out.append((id, .skip))
                    continue
                }
                var merged = ours
                for (key, v) in theirs where base[key] != v { merged[key] = v }
                out.append((id, .update(merged)))
            }
        }
        if !conflicts.isEmpty {
            throw EngineError(
                .mergeConflict,
                "\(conflicts.count) object(s) changed in the store since context \(name) read them; nothing was written",
                [("conflicts", .list(conflicts))])
        }
        return (out, conflicted)
    }

    private func conflictDetail(_ id: ObjectID, ours: Snapshot?, theirs: Snapshot?, base: Snapshot)
        -> EngineError.Detail
    {
        let entity = model.entity(id.entity)
        let keys = differingKeys(ours, theirs).filter {
            (ours?[$0] ?? .null) != base[$0] || (theirs?[$0] ?? .null) != base[$0]
        }
        let ordered = (entity.map { $0.attributes.map(\.name) + $0.relationships.map(\.name) } ?? []).filter(
            keys.contains)
        func side(_ s: Snapshot?) -> EngineError.Detail {
            guard let s, let entity else { return .null }
            return entity.detail(of: s, keys: ordered)
        }
        return .record([
            ("id", .string(id.description)), ("keys", .list(ordered.map { .string($0) })),
            ("ours", side(ours)), ("theirs", side(theirs)),
        ])
    }
}
