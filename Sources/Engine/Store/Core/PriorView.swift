import Model
import Predicates

/// The store as it was before some transactions of the history: what a context showed
/// before merging them, so the change cycle carries exact before values. Built from the
/// rows' recorded old values (attributes, to-one references, versions) and by undoing their
/// link changes; to-many sides read backwards from a to-one are derived from those. Shared
/// by both stores: each reads its current rows and decodes its recorded old values.
protocol HistoryBackedStore: Store {
    var tables: [String: EntityTable] { get }
    /// The dialect's reads of one saved row as it is now (no overlay, nothing just written).
    func readRow(_ id: ObjectID) throws(EngineError) -> StoredObject?
    func readRelated(_ id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID]
    func readVersion(_ id: ObjectID) throws(EngineError) -> Int64?
    /// A history row's recorded old values, by column name.
    func decodeOld(_ old: String?, _ t: EntityTable) throws(EngineError) -> Snapshot
}

/// The reads every store answers the same way over its dialect's row reads: as the store
/// was before a merge's transactions while `overlay` is set, rows a batch just read or
/// wrote from `justWritten`, else the row as stored.
extension HistoryBackedStore {
    func readObject(_ id: ObjectID) throws(EngineError) -> StoredObject? {
        if let overlay { return try readBefore(id, overlay) }
        return try readCurrent(id)
    }

    func readCurrent(_ id: ObjectID) throws(EngineError) -> StoredObject? {
        if let known = justWritten?.lookup(id) { return known }
        return try readRow(id)
    }

    func readRelatedIDs(_ id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID] {
        if let overlay { return try relatedBefore(id, relationship, overlay) }
        return try relatedCurrent(id, relationship)
    }

    func relatedCurrent(_ id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID] {
        try readRelated(id, relationship)
    }

    func readObjectVersion(_ id: ObjectID) throws(EngineError) -> Int64? {
        if let overlay, let entry = overlay[id] { return entry?.version }
        return try readVersion(id)
    }
}

extension HistoryBackedStore {
    /// Join table name -> its two sides (column a's entity and relationship, then b's).
    var joins: [String: (a: (entity: String, relationship: String), b: (entity: String, relationship: String))] {
        var out: [String: (a: (entity: String, relationship: String), b: (entity: String, relationship: String))] = [:]
        for t in tables.values {
            for j in t.manyToMany where j.selfColumn == "a" {
                let r = j.relationship
                out[j.table] = ((t.entity.name, r.name), (r.destination, r.inverse))
            }
        }
        return out
    }

    /// Every object the transactions touched, as the store held it before the first of them
    /// (nil: it did not exist), without the to-many sides read backwards from a to-one
    /// (`read` derives those while the result is the `overlay`).
    func priorObjectsFromHistory(_ transactions: [HistoryTransaction]) throws(EngineError) -> [ObjectID: StoredObject?]
    {
        let rows = transactions.flatMap(\.rows)
        let joins = self.joins
        var firstRow: [ObjectID: HistoryRow] = [:]
        var touched: [ObjectID] = []
        func touch(_ id: ObjectID, _ row: HistoryRow?) {
            if firstRow[id] == nil, let row { firstRow[id] = row }
            touched.append(id)
        }
        for row in rows {
            if tables[row.table] != nil {
                for n in row.numbers { touch(ObjectID(entity: row.table, number: n), row) }
            } else if let j = joins[row.table], let other = row.other {
                touch(ObjectID(entity: j.a.entity, number: row.pk), nil)
                touch(ObjectID(entity: j.b.entity, number: other), nil)
            }
        }
        var out: [ObjectID: StoredObject?] = [:]
        for id in touched where out.index(forKey: id) == nil {
            guard let t = tables[id.entity] else { continue }
            let current = try readCurrent(id)
            var prior: StoredObject?
            if let row = firstRow[id] {
                // The first recorded row tells what was there before.
                if row.op == .insert {
                    prior = nil
                } else {
                    prior = StoredObject(values: try decodeOld(row.old, t), version: row.version ?? 1)
                }
            } else {
                prior = current
            }
            if var p = prior {
                for r in t.toMany where SchemaNaming.isManyToMany(r, in: model) { p.values[r.name] = nil }
                // Links: the current ones with the transactions' link changes undone, newest first.
                for j in t.manyToMany {
                    var links = Set((current?.values[j.relationship.name] ?? .objects([])).objectIDs.map(\.number))
                    for row in rows.reversed() where row.table == j.table {
                        guard let other = row.other else { continue }
                        let (mine, theirs) = j.selfColumn == "a" ? (row.pk, other) : (other, row.pk)
                        guard mine == id.number else { continue }
                        if row.op == .insert { links.remove(theirs) } else { links.insert(theirs) }
                    }
                    p.values[j.relationship.name] = .objects(
                        links.sorted().map { ObjectID(entity: j.relationship.destination, number: $0) })
                }
                prior = p
            }
            out[id] = .some(prior)
        }
        return out
    }

    // MARK: Reads through the overlay

    func readBefore(_ id: ObjectID, _ overlay: [ObjectID: StoredObject?]) throws(EngineError) -> StoredObject? {
        guard let t = tables[id.entity] else { return nil }
        var object: StoredObject
        if let entry = overlay[id] {
            guard let entry else { return nil }
            object = entry
            for r in t.toMany where SchemaNaming.isManyToMany(r, in: model) && object.values[r.name] == nil {
                object.values[r.name] = .objects(try relatedCurrent(id, r.name))
            }
        } else {
            guard let current = try readCurrent(id) else { return nil }
            object = current
        }
        for r in t.toMany where !SchemaNaming.isManyToMany(r, in: model) {
            object.values[r.name] = .objects(try derivedBefore(id, r, overlay))
        }
        return object
    }

    func relatedBefore(_ id: ObjectID, _ relationship: String, _ overlay: [ObjectID: StoredObject?]) throws(EngineError)
        -> [ObjectID]
    {
        guard let t = tables[id.entity],
            let r = t.toMany.first(where: { $0.name == relationship })
        else { return [] }
        if SchemaNaming.isManyToMany(r, in: model) {
            return (try readBefore(id, overlay)?.values[relationship] ?? .objects([])).objectIDs
        }
        return try derivedBefore(id, r, overlay)
    }

    /// A to-many side read backwards from its inverse to-one: the current rows, with the
    /// overlay's objects counted as they were.
    private func derivedBefore(_ id: ObjectID, _ r: Relationship, _ overlay: [ObjectID: StoredObject?])
        throws(EngineError) -> [ObjectID]
    {
        var ids = Set(try relatedCurrent(id, r.name)).filter { overlay.index(forKey: $0) == nil }
        for (other, entry) in overlay where other.entity == r.destination {
            if let entry, entry.values[r.inverse] == .object(id) { ids.insert(other) }
        }
        return ids.sorted()
    }
}
