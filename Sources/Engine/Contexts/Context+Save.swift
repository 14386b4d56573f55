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
        try discardPending()
        processPendingChanges()
    }

    // MARK: Child save

    private func push(into parent: Context) throws(EngineError) -> SaveCounts {
        var counts = SaveCounts()
        let entries = pending.sorted { $0.key < $1.key }.filter { $0.value.isEffective }
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
        processPendingChanges()
        parent.processPendingChanges()
        return counts
    }

    // MARK: Root save

    private func writeToStore() throws(EngineError) -> SaveCounts {
        let entries = pending.sorted { $0.key < $1.key }.filter { $0.value.isEffective }
        try validate(entries)
        let resolved = try resolveConflicts(entries)
        var batch = StoreBatch()
        var counts = SaveCounts()
        for (id, write) in resolved {
            switch write {
            case .insert(let v): batch.inserts.append((id, v)); counts.inserted += 1
            case .update(let v): batch.updates.append((id, v)); counts.updated += 1
            case .delete: batch.deletes.append(id); counts.deleted += 1
            case .skip: break
            }
        }
        let mergers = (graph?.roots ?? []).filter { $0 !== self && $0.mergesChangesFromParent }
        let written = resolved.compactMap { entry -> ObjectID? in if case .skip = entry.1 { return nil } else { return entry.0 } }
        var finals: [ObjectID: Snapshot?] = [:]
        for (id, write) in resolved {
            switch write {
            case .insert(let v), .update(let v): finals[id] = .some(v)
            case .delete: finals[id] = .some(nil)
            case .skip: break
            }
        }
        // What the merging roots see before the write, for their cycles afterwards. A new
        // object was nowhere before.
        let inserted = Set(batch.inserts.map(\.0))
        for r in mergers {
            for id in written {
                if inserted.contains(id) { r.noteNew(id) } else { try r.noteCurrent(id, next: finals[id] ?? nil) }
            }
        }
        // Here, an object the store now holds as this context showed it does not change (nor
        // in the children); only those the merge policy settled otherwise are noted.
        for (id, p) in entries {
            if let final = finals[id] {
                if final == p.values { continue }
                try noteCurrent(id, next: final)
            } else {
                try noteCurrent(id, next: try store.read(id)?.values)
            }
        }
        try store.write(batch)
        clearPending()
        processPendingChanges()
        for r in mergers {
            try r.rebase(on: written)
            r.processPendingChanges()
        }
        return counts
    }

    /// After another root's save of `ids`: pending changes to those objects now stand on the
    /// saved values (keys this context changed keep its values), as Core Data's merge does.
    func rebase(on ids: [ObjectID]) throws(EngineError) {
        for id in ids {
            guard let p = pending[id] else { continue }
            guard let row = try store.read(id) else {
                // Deleted by the save: the object is gone here too.
                try replacePending(id, nil)
                continue
            }
            var next = p
            let saved = stored(row.values, of: id.entity)
            if let values = p.values, var merged = saved {
                for key in p.changedKeys { merged[key] = values[key] }
                next.values = merged
            }
            next.base = saved
            next.baseVersion = row.version
            try replacePending(id, next.isEffective ? next : nil)
        }
    }

    // MARK: Validation

    /// Required values present and no reference to an object that is gone.
    private func validate(_ entries: [(key: ObjectID, value: PendingChange)]) throws(EngineError) {
        var errors: [(ObjectID, String, String)] = []
        for (id, p) in entries {
            guard let entity = model.entity(id.entity) else { continue }
            if let values = p.values {
                for a in entity.attributes where !a.optional && (values[a.name] ?? .null).isNull {
                    errors.append((id, a.name, "required value missing"))
                }
                for r in entity.relationships {
                    let targets = (values[r.name] ?? .null).objectIDs
                    if !r.optional && targets.isEmpty {
                        errors.append((id, r.name, r.toMany ? "required relationship is empty" : "required relationship missing"))
                    }
                    for t in targets where try object(t) == nil {
                        errors.append((id, r.name, "refers to \(t), which does not exist"))
                    }
                }
            } else if let base = p.base {
                // Objects left pointing at a deleted object (a noAction rule), saved or not.
                let derived = Set(model.derivedRelationships(of: id.entity).map(\.name))
                for r in entity.relationships {
                    let targets = derived.contains(r.name) ? try derivedIDs(id, r).sorted() : (base[r.name] ?? .null).objectIDs
                    for t in targets where pending[t] == nil {
                        if let tv = try object(t), (tv[r.inverse] ?? .null).objectIDs.contains(id) {
                            errors.append((t, r.inverse, "refers to \(id), which does not exist"))
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
        throw EngineError(.validation, "the save is invalid: \(errors.count) problem(s), nothing was written",
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
    private func resolveConflicts(_ entries: [(key: ObjectID, value: PendingChange)]) throws(EngineError) -> [(ObjectID, Write)] {
        var out: [(ObjectID, Write)] = []
        var conflicts: [EngineError.Detail] = []
        for (id, p) in entries {
            if p.isInsert {
                out.append((id, .insert(p.values ?? [:])))
                continue
            }
            let row = try store.read(id)
            guard row?.version != p.baseVersion || row == nil else {
                out.append((id, p.values.map(Write.update) ?? .delete))
                continue
            }
            let ours = p.values, theirs = stored(row?.values, of: id.entity), base = p.base ?? [:]
            switch mergePolicy {
            case .error:
                conflicts.append(conflictDetail(id, ours: ours, theirs: theirs, base: base))
            case .overwrite:
                out.append((id, ours.map { theirs == nil ? .insert($0) : .update($0) } ?? (theirs == nil ? .skip : .delete)))
            case .rollback:
                out.append((id, .skip))
            case .objectTrump:
                guard let ours else { out.append((id, theirs == nil ? .skip : .delete)); continue }
                guard var merged = theirs else { out.append((id, .insert(ours))); continue }
                for key in p.changedKeys { merged[key] = ours[key] }
                out.append((id, .update(merged)))
            case .storeTrump:
                guard let ours, let theirs else { out.append((id, .skip)); continue }
                var merged = ours
                for (key, v) in theirs where base[key] != v { merged[key] = v }
                out.append((id, .update(merged)))
            }
        }
        if !conflicts.isEmpty {
            throw EngineError(.mergeConflict, "\(conflicts.count) object(s) changed in the store since context \(name) read them; nothing was written",
                              [("conflicts", .list(conflicts))])
        }
        return out
    }

    private func conflictDetail(_ id: ObjectID, ours: Snapshot?, theirs: Snapshot?, base: Snapshot) -> EngineError.Detail {
        let entity = model.entity(id.entity)
        let keys = differingKeys(ours, theirs).filter { (ours?[$0] ?? .null) != base[$0] || (theirs?[$0] ?? .null) != base[$0] }
        let ordered = (entity.map { $0.attributes.map(\.name) + $0.relationships.map(\.name) } ?? []).filter(keys.contains)
        func side(_ s: Snapshot?) -> EngineError.Detail {
            guard let s, let entity else { return .null }
            return entity.detail(of: s, keys: ordered)
        }
        return .record([("id", .string(id.description)), ("keys", .list(ordered.map { .string($0) })),
                        ("ours", side(ours)), ("theirs", side(theirs))])
    }
}
