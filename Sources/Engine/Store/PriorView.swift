import Model
import Predicates
import SQLite

/// The store as it was before some transactions of the history: what a context showed
/// before merging them, so the change cycle carries exact before values. Built from the
/// rows' recorded old values (attributes, to-one references, versions) and by undoing their
/// link changes; to-many sides read backwards from a to-one are derived from those. Shared
/// by both stores: each reads its current rows and decodes its recorded old values.
protocol HistoryBackedStore: Store {
    var tables: [String: EntityTable] { get }
    func readCurrent(_ id: ObjectID) throws(EngineError) -> StoredObject?
    func relatedCurrent(_ id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID]
    /// A history row's recorded old values, by column name.
    func decodeOld(_ old: String?, _ t: EntityTable) throws(EngineError) -> Snapshot
}

extension SQLiteStore: HistoryBackedStore {
    public func priorObjects(_ transactions: [HistoryTransaction]) throws(EngineError) -> [ObjectID: StoredObject?] {
        try priorObjectsFromHistory(transactions)
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
                for (r, _) in t.toMany where SchemaNaming.isManyToMany(r, in: model) { p.values[r.name] = nil }
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
            for (r, _) in t.toMany where SchemaNaming.isManyToMany(r, in: model) && object.values[r.name] == nil {
                object.values[r.name] = .objects(try relatedCurrent(id, r.name))
            }
        } else {
            guard let current = try readCurrent(id) else { return nil }
            object = current
        }
        for (r, _) in t.toMany where !SchemaNaming.isManyToMany(r, in: model) {
            object.values[r.name] = .objects(try derivedBefore(id, r, overlay))
        }
        return object
    }

    func relatedBefore(_ id: ObjectID, _ relationship: String, _ overlay: [ObjectID: StoredObject?]) throws(EngineError)
        -> [ObjectID]
    {
        guard let t = tables[id.entity],
            let r = t.toMany.first(where: { $0.relationship.name == relationship })?.relationship
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

extension SQLiteStore {
    /// A row's recorded old values (`HistorySchema.oldValues`).
    func decodeOld(_ json: String?, _ t: EntityTable) throws(EngineError) -> Snapshot {
        var values: Snapshot = [:]
        guard let json else { return values }
        do {
            let s = try connection.prepare("SELECT value FROM json_each(?) ORDER BY CAST(key AS INTEGER)")
            defer { s.reset() }
            try s.bind(.text(json), at: 1)
            var i = 0
            let columns = HistorySchema.columns(t.entity)
            while try s.step(), i < columns.count {
                let raw = s.value(0)
                let (name, type) = columns[i]
                i += 1
                guard let type else {
                    let r = t.toOne.first { $0.name == name }!
                    values[name] = ValueEncoding.reference(raw, to: r.destination)
                    continue
                }
                var v = raw
                if case .text(let text) = raw {
                    switch type {
                    case .double, .date: v = Double(text).map(SQLValue.real) ?? raw
                    case .binary: v = .blob(Self.unhex(text))
                    default: break
                    }
                }
                values[name] = ValueEncoding.value(v, as: type)
            }
        } catch { throw Self.storeError(error, "reading the history") }
        return values
    }

    private static func unhex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        for c in text.utf8 {
            let d: UInt8 = c >= 65 ? (c & 0x5f) - 55 : c - 48
            if let h = high {
                out.append(h << 4 | d)
                high = nil
            } else {
                high = d
            }
        }
        return out
    }
}
