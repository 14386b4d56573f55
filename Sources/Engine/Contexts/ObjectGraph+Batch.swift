import Model
import Store

/// Batch requests (Core Data's NSBatchInsertRequest, NSBatchUpdateRequest and
/// NSBatchDeleteRequest; protocol.md §5 "Batch requests"): written straight to the store in
/// one transaction, never through a context the client sees. The model still holds (types,
/// required values, defaults, relationship targets, delete rules), and unlike Core Data every
/// root context that merges changes takes the batch as ONE change cycle (reason `batch`), so
/// its controllers notify: a batch is saved by a transient root nobody sees, and merged
/// exactly as another root's save is. A batch with any problem writes nothing.
extension ObjectGraph {
    /// One problem of a batch: the row (an insert's index) or object it is about, the key.
    public struct BatchProblem: Sendable, Equatable {
        public var row: Int?
        public var id: ObjectID?
        public var key: String?
        public var reason: String
        public init(row: Int? = nil, id: ObjectID? = nil, key: String? = nil, reason: String) {
            self.row = row
            self.id = id
            self.key = key
            self.reason = reason
        }
    }

    /// Inserts one object per row (keys left out take their default, or null) and returns
    /// their ids in row order. `rejected` are rows the caller could not read (a value of the
    /// wrong type), reported with the others. Every problem is listed (`validation`, by row
    /// and key); then nothing is written.
    ///
    /// Rows held for the entity (`holdInsertPart`) are part of this insert: they come first,
    /// row numbers count on through them, and whatever happens they are held no longer.
    @discardableResult
    public func batchInsert(_ entityName: String, rows: [Snapshot], rejected: [BatchProblem] = [])
        throws(EngineError) -> [ObjectID]
    {
        let entity = try batchEntity(entityName)
        let held = heldInserts.removeValue(forKey: entity.name)
        do {
            return try underWriteLock { () throws(EngineError) in
                let batch = batchContext()
                WorkProgress.current?.phase("checking \((held?.count ?? 0) + rows.count) rows")
                var problems = try Self.rowProblems(rows, rejected, entity, batch, firstRow: held?.count ?? 0)
                if let held { problems += try held.missingTargets(entity, batch) }
                try Self.refuse(problems, "rows")
                let all = held.map { $0.rows(then: rows) } ?? rows
                releaseLater(all)
                // The parts too: each row they hold would be released here, before the answer.
                if let held { releaseLater(held) }
                if let ids = try insertDirectly(entity, all) { return ids }
                var ids: [ObjectID] = []
                ids.reserveCapacity(all.count)
                for values in all { ids.append(try batch.insert(entity.name, values)) }
                try batch.save()
                return ids
            }
        } catch {
            throw held.map { error.droppingHeld($0.count) } ?? error
        }
    }

    /// Sets `values` on every saved object of the entity that `filter` matches (all of them
    /// without one) and returns how many there were.
    @discardableResult
    public func batchUpdate(_ entityName: String, filter: (any ObjectFilter)?, values: Snapshot)
        throws(EngineError) -> Int
    {
        let entity = try batchEntity(entityName)
        return try underWriteLock { () throws(EngineError) in
            let batch = batchContext()
            var checker = RowChecker(entity, batch)
            let found = try checker.problems(of: values, required: false)
            try Self.refuse(found.map { BatchProblem(key: $0.key, reason: $0.reason) }, "values")
            WorkProgress.current?.phase("updating the matching rows")
            if let n = try updateDirectly(entity, filter, values) { return n }
            let ids = try matching(entity, filter)
            for id in ids { try batch.update(id, values) }
            try batch.save()
            return ids.count
        }
    }

    /// Deletes the saved objects of the entity that `filter` matches (all without one), or
    /// those of `ids` (with a filter: those of them it matches), applying every delete rule
    /// (cascade, nullify, deny) as a context's delete does; returns how many the request
    /// named (cascades not counted). Unknown ids and deny rules that hold are listed
    /// (`validation`, by id); then nothing is deleted.
    @discardableResult
    public func batchDelete(_ entityName: String, filter: (any ObjectFilter)?, ids: [ObjectID]?)
        throws(EngineError) -> Int
    {
        let entity = try batchEntity(entityName)
        return try underWriteLock { () throws(EngineError) in try delete(entity, filter, ids) }
    }

    private func delete(_ entity: Entity, _ filter: (any ObjectFilter)?, _ ids: [ObjectID]?) throws(EngineError)
        -> Int
    {
        let batch = batchContext()
        var problems: [BatchProblem] = []
        var targets: [ObjectID] = []
        if let ids {
            for id in ids {
                if id.entity != entity.name {
                    problems.append(BatchProblem(id: id, reason: "not a \(entity.name)"))
                } else if let values = try batch.object(id) {
                    // With a predicate too: those of the ids it matches.
                    if filter?.matches(id, values, in: batch) ?? true { targets.append(id) }
                } else {
                    problems.append(BatchProblem(id: id, reason: "no such object in the store"))
                }
            }
        } else {
            WorkProgress.current?.phase("deleting the matching rows")
            if let n = try deleteDirectly(entity, filter) { return n }
            targets = try matching(entity, filter)
        }
        var seen = Set<ObjectID>()
        for id in targets where seen.insert(id).inserted {
            // Already gone through another's cascade.
            guard try batch.object(id) != nil else { continue }
            do throws(EngineError) { try batch.delete(id) } catch  where error.kind == .deleteDenied {
                var key: String?
                if case .string(let name)? = error.detail("relationship") { key = name }
                problems.append(BatchProblem(id: id, key: key, reason: error.message))
            }
        }
        try Self.refuse(problems, "objects")
        try batch.save()
        return seen.count
    }

    // MARK: Parts

    /// The to-one references of `entity` whose other side is derived (a to-many read
    /// backwards): columns of its own row, with no other side to keep in step.
    func simpleReferences(of entity: Entity) -> Set<String> {
        Set(store.model.referencingRelationships(of: entity.name).map(\.name))
    }

    /// Whether every key the rows set is a column of the entity's own row: an attribute or
    /// a simple reference (each key checked once, however many rows give it).
    func setsOwnColumns(_ rows: [Snapshot], of entity: Entity) -> Bool {
        let simple = simpleReferences(of: entity)
        var checked = Set<String>()
        for values in rows {
            for key in values.keys where checked.insert(key).inserted {
                guard entity.attribute(key) != nil || simple.contains(key) else { return false }
            }
        }
        return true
    }

    /// The common bulk load, rows (already validated) of attributes and to-one references
    /// whose other side is a derived to-many (nothing else to keep in step): written without
    /// staging each object in the transient context, and read back by the merging roots from
    /// what was written. Nil when a row sets another relationship (the general path then).
    private func insertDirectly(_ entity: Entity, _ rows: [Snapshot]) throws(EngineError) -> [ObjectID]? {
        let simple = simpleReferences(of: entity)
        for r in entity.relationships where !simple.contains(r.name) {
            if rows.contains(where: { $0[r.name] != nil }) { return nil }
        }
        var written = StoreBatch()
        written.inserts.reserveCapacity(rows.count)
        // One run of numbers: one reservation, and the history records it as one run.
        var numbers = try store.reserveIDs(for: entity.name, count: rows.count).makeIterator()
        for values in rows {
            // The row itself when it gives every key (no copy); else completed with defaults.
            var full = values
            if values.count != entity.attributes.count + entity.relationships.count {
                for a in entity.attributes where full[a.name] == nil { full[a.name] = a.defaultValue ?? .null }
                for r in entity.relationships where full[r.name] == nil {
                    full[r.name] = r.toMany ? .objects([]) : .null
                }
            }
            let id = ObjectID(entity: entity.name, number: numbers.next()!)
            written.inserts.append((id, full))
        }
        try writeMerged(written, of: entity)
        return written.inserts.map(\.0)
    }

    /// A batch update of attributes and simple to-one references on an entity that keeps
    /// everything in its row, set-based (Store+BulkWrite.swift); nil otherwise.
    private func updateDirectly(_ entity: Entity, _ filter: (any ObjectFilter)?, _ values: Snapshot)
        throws(EngineError) -> Int?
    {
        guard store.isSingleRow(entity.name), setsOwnColumns([values], of: entity) else { return nil }
        if let n = try updateInSQL(entity, filter, values) { return n }
        // A row changes by the keys set alone (`setting`).
        return try writeMatching(entity, changing: Array(values.keys)) { () throws(EngineError) in
            try store.readMatching(entity: entity.name, filter: filter)
        } next: { _, prior in
            Self.setting(values, on: prior)
        } write: { (changed) throws(EngineError) in
            try store.updateMatching(entity: entity.name, numbers: changed.map(\.0.number), values: values)
        }
    }

    /// `prior` with `values` set and its version up by one; nil when no value differs (a
    /// lookup per value, not a comparison of rows).
    static func setting(_ values: Snapshot, on prior: StoredObject) -> StoredObject?? {
        guard values.contains(where: { prior.values[$0.key] != $0.value }) else { return nil }
        var next = prior
        for (key, value) in values { next.values[key] = value }
        next.version += 1
        return .some(next)
    }

    /// A batch delete (by predicate) on an entity whose only relationships are to-one
    /// references with a derived other side that neither cascade nor deny, set-based; nil
    /// otherwise.
    private func deleteDirectly(_ entity: Entity, _ filter: (any ObjectFilter)?) throws(EngineError) -> Int? {
        // Only to-one references whose other side is derived: nothing else points here.
        let simple = simpleReferences(of: entity)
        guard
            entity.relationships.allSatisfy({
                simple.contains($0.name) && $0.deleteRule != .cascade && $0.deleteRule != .deny
            })
        else { return nil }
        if let n = try deleteInSQL(entity, filter) { return n }
        return try writeMatching(entity) { () throws(EngineError) in
            try store.readMatching(entity: entity.name, filter: filter)
        } next: { _, _ in
            .some(nil)
        } write: { (changed) throws(EngineError) in
            try store.deleteMatching(entity: entity.name, numbers: changed.map(\.0.number))
        }
    }

    /// Under the write lock: `read`s the rows (ascending), has every merging root note them
    /// (reading them from what was read) with what `next` makes of each (given its index;
    /// nil: unchanged; `.some(nil)`: deleted), runs `write` on the rows that change as they
    /// become (ascending), commits, and lets the roots take them as one cycle. Returns how
    /// many rows were read. `changing`: the only keys `next` sets, nil when it may set any.
    func writeMatching(
        _ entity: Entity, changing keys: [String]? = nil, read: () throws(EngineError) -> [(ObjectID, StoredObject)],
        next: (Int, StoredObject) -> StoredObject??,
        write: ([(ObjectID, StoredObject?)]) throws(EngineError) -> Void
    ) throws(EngineError) -> Int {
        let mergers = roots.filter(\.mergesChangesFromParent)
        var matched = 0
        try commitMerged(mergers) { () throws(EngineError) in
            let prior = try read()
            matched = prior.count
            // The rows read and made here are freed after the answer (`releaseLater`).
            releaseLater(prior)
            // Both ascending, as read: the roots look rows up by a binary search.
            var before: [(ObjectID, StoredObject?)] = []
            var after: [(ObjectID, StoredObject?)] = []
            before.reserveCapacity(prior.count)
            after.reserveCapacity(prior.count)
            for (i, (id, row)) in prior.enumerated() {
                // `next` says whether the row changes: no comparison of whole rows here.
                guard let n = next(i, row) else { continue }
                before.append((id, row))
                after.append((id, n))
            }
            let changed = before.map(\.0)
            store.justWritten = JustWritten(rows: before)
            defer { store.justWritten = nil }
            // Without to-one references no other object's one-to-many side changes: the
            // rows are noted as one run, with no look-up of their next values.
            let references = !store.model.referencingRelationships(of: entity.name).isEmpty
            for r in mergers {
                if references {
                    r.reserveNotes(changed.count)
                    for (id, n) in after { try r.noteCurrent(id, next: n?.values) }
                } else {
                    try r.noteChanged(before: before, after: after, entity: entity.name, keys: keys)
                }
            }
            try write(after)
            releaseLater(after)
            return (JustWritten(rows: after), changed)
        }
        return matched
    }

    /// In the open write transaction: writes `batch` (new objects of `entity`), commits, and
    /// has every merging root take it as one cycle (reason `batch`), as a root's save does
    /// for the others (Context+Save.swift).
    private func writeMerged(_ batch: StoreBatch, of entity: Entity) throws(EngineError) {
        let mergers = roots.filter(\.mergesChangesFromParent)
        try commitMerged(mergers) { () throws(EngineError) in
            let references = !store.model.referencingRelationships(of: entity.name).isEmpty
            // Every row holds every key of the entity (`insertDirectly`).
            let keys = Set(entity.attributes.map(\.name) + entity.relationships.map(\.name))
            for r in mergers {
                r.noteNew(run: batch.inserts, keys: keys)
                guard references else { continue }
                // A new object joins the one-to-many sides it points at.
                for (id, values) in batch.inserts {
                    for t in r.referencedTargets(values, of: id.entity) { try r.noteCurrent(t) }
                }
            }
            try store.write(batch)
            // A new row's version is 1; nothing refers to it yet.
            return (JustWritten(inserted: batch.inserts), [])
        }
    }

    /// In the open write transaction (`underWriteLock`): `noteAndWrite` (the merging roots
    /// note what they show, then the rows are written; it answers the rows as written and the
    /// ids whose unsaved changes rebase on them), the commit, then every merging root takes
    /// the rows as one cycle, reading them from what was written.
    private func commitMerged(
        _ mergers: [Context],
        _ noteAndWrite: () throws(EngineError) -> (known: JustWritten, rebasing: [ObjectID])
    ) throws(EngineError) {
        // A failure leaves the transaction for `underWriteLock` to roll back.
        let written: (known: JustWritten, rebasing: [ObjectID])
        do throws(EngineError) {
            written = try noteAndWrite()
            try store.commitWrite()
        } catch {
            for r in mergers { r.forgetNotedRun() }
            throw error
        }
        store.justWritten = written.known
        defer { store.justWritten = nil }
        let ids = written.rebasing
        for r in mergers {
            if !ids.isEmpty { try r.rebase(on: ids) }
            r.processPendingChanges(.batch)
        }
    }

    /// Runs a batch under the write lock from its first read: no other writer's commit lands
    /// between what the batch reads (matches, targets, delete rules) and what it writes. The
    /// batch commits inside (the writes below find the transaction open); whatever is left
    /// open (a batch that wrote nothing, a failure) is rolled back.
    func underWriteLock<T>(_ body: () throws(EngineError) -> T) throws(EngineError) -> T {
        try beginWrite(author: nil)
        defer {
            store.rollbackWrite()
            settleAfterWrite()
        }
        return try body()
    }

    /// Every problem of the rows: those the caller could not read (`rejected`), then each
    /// row's own, except for keys already reported (a row rejected as a whole, without a
    /// key, is not checked again).
    /// Row numbers (of `rows` and of `rejected`) count from 0; the problems count from
    /// `firstRow` (a part of a held insert).
    static func rowProblems(
        _ rows: [Snapshot], _ rejected: [BatchProblem], _ entity: Entity, _ view: Context, required: Bool = true,
        firstRow: Int = 0
    ) throws(EngineError) -> [BatchProblem] {
        var all = rejected
        var reported: [Int: Set<String?>] = [:]
        for p in rejected { if let row = p.row { reported[row, default: []].insert(p.key) } }
        var checker = RowChecker(entity, view)
        for (row, values) in rows.enumerated() {
            let known = reported[row]
            if known?.contains(nil) == true { continue }
            for p in try checker.problems(of: values, required: required) where known?.contains(p.key) != true {
                all.append(BatchProblem(row: row, key: p.key, reason: p.reason))
            }
        }
        if firstRow != 0 { for i in all.indices { all[i].row = all[i].row.map { $0 + firstRow } } }
        return all
    }

    func batchEntity(_ name: String) throws(EngineError) -> Entity {
        guard let entity = store.model.entity(name) else {
            throw EngineError(.unknownEntity, "no entity \(name)", [("entity", .string(name))])
        }
        return entity
    }

    /// A root over the store that no client sees. It reads and writes under one write lock
    /// (`underWriteLock`), so no conflict can arise; objectTrump states what would win.
    func batchContext() -> Context {
        let c = Context(
            name: "batch", parent: nil, mergesChangesFromParent: false, mergePolicy: .objectTrump, graph: self)
        c.isBatch = true
        return c
    }

    /// The saved ids `filter` matches, by number.
    private func matching(_ entity: Entity, _ filter: (any ObjectFilter)?) throws(EngineError) -> [ObjectID] {
        var ids: [ObjectID] = []
        try store.forEachKey(
            entity: entity.name, filter: filter, ordering: nil, limit: nil, offset: 0, skipping: [], ordered: true
        ) { number, _ in
            ids.append(ObjectID(entity: entity.name, number: number))
        }
        return ids
    }

    /// Checks a batch's rows of one entity: each key looked up once per batch (not by a
    /// search of the entity's keys per value), each referenced object read once.
    struct RowChecker {
        let entity: Entity
        let view: Context
        private let kinds: [String: Entity.Key]
        private let keyCount: Int
        private var found: Set<ObjectID> = []
        /// The keys of the last row checked, in its order, with what each is: rows of one
        /// batch usually list the same keys in the same order, so most keys are found here
        /// by comparison instead of by hashing.
        private var lastKeys: [RowKey] = []

        /// One key as the checks need it; an attribute's type and optionality also on their
        /// own, so checking its value copies nothing of the model.
        private struct RowKey {
            let key: String
            let kind: Entity.Key?
            let attribute: (type: AttributeType, optional: Bool)?

            init(_ key: String, _ kind: Entity.Key?) {
                self.key = key
                self.kind = kind
                if case .attribute(let a)? = kind { attribute = (a.type, a.optional) } else { attribute = nil }
            }
        }

        init(_ entity: Entity, _ view: Context) {
            self.entity = entity
            self.view = view
            var kinds: [String: Entity.Key] = [:]
            for a in entity.attributes { kinds[a.name] = .attribute(a) }
            for r in entity.relationships { kinds[r.name] = .relationship(r) }
            self.kinds = kinds
            keyCount = entity.attributes.count + entity.relationships.count
        }

        /// Every problem of one row of values: unknown keys, wrong types, missing targets and,
        /// for an insert (`required`), required values left out with no default.
        mutating func problems(of values: Snapshot, required: Bool) throws(EngineError) -> [(
            key: String, reason: String
        )] {
            var out: [(key: String, reason: String)] = []
            // In any order: `refuse` sorts the list.
            var known = 0
            for (j, (key, v)) in values.enumerated() {
                if j >= lastKeys.count || lastKeys[j].key != key {
                    let entry = RowKey(key, kinds[key])
                    if j < lastKeys.count { lastKeys[j] = entry } else { lastKeys.append(entry) }
                }
                // An attribute is checked from its type and optionality alone (nothing of the
                // model copied); `check` words the problem of a value that does not fit.
                if let a = lastKeys[j].attribute {
                    known += 1
                    if !v.fits(a.type) {
                        do throws(EngineError) { try entity.check(key, lastKeys[j].kind, v) } catch {
                            out.append((key, error.message))
                        }
                    } else if !a.optional && v.isNull {
                        out.append((key, "required value missing"))
                    }
                    continue
                }
                let kind = lastKeys[j].kind
                if kind != nil { known += 1 }
                do throws(EngineError) { try entity.check(key, kind, v) } catch {
                    out.append((key, error.message))
                    continue
                }
                guard case .relationship(let r)? = kind else { continue }
                if !r.optional && v.objectIDs.isEmpty {
                    out.append((key, r.toMany ? "required relationship is empty" : "required relationship missing"))
                }
                for t in v.objectIDs where !found.contains(t) {
                    if try view.object(t) == nil {
                        out.append((key, InvalidValue.missingTarget("\(t)")))
                    } else {
                        found.insert(t)
                    }
                }
            }
            // A row that gives every key of the entity leaves nothing required out.
            guard required, known != keyCount else { return out }
            for a in entity.attributes where !a.optional && values[a.name] == nil && (a.defaultValue ?? .null).isNull {
                out.append((a.name, "required value missing"))
            }
            for r in entity.relationships where !r.optional && values[r.name] == nil {
                out.append((r.name, r.toMany ? "required relationship is empty" : "required relationship missing"))
            }
            return out
        }
    }

    /// `validation` listing every problem, when there is one.
    static func refuse(_ problems: [BatchProblem], _ what: String) throws(EngineError) {
        guard !problems.isEmpty else { return }
        // By row (problems of the whole request first), then id, then key.
        let sorted = problems.enumerated().sorted { a, b in
            let x = (a.element.row ?? -1, a.element.id?.number ?? -1, a.element.key ?? "", a.offset)
            let y = (b.element.row ?? -1, b.element.id?.number ?? -1, b.element.key ?? "", b.offset)
            return x < y
        }.map(\.element)
        let list: [EngineError.Detail] = sorted.map { p in
            var fields: [(String, EngineError.Detail)] = []
            if let row = p.row { fields.append(("row", .int(Int64(row)))) }
            if let id = p.id { fields.append(("id", .string(id.description))) }
            if let key = p.key { fields.append(("key", .string(key))) }
            fields.append(("reason", .string(p.reason)))
            return .record(fields)
        }
        throw EngineError(
            .validation, "the batch is invalid: \(problems.count) problem(s) in its \(what), nothing was written",
            [("errors", .list(list))])
    }
}
