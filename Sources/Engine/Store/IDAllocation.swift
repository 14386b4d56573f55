import Model
import SQLite

/// A run of numbers of one entity that this store reserved in the file and hands out one by
/// one; `end` is exclusive.
struct IDBlock {
    var next: Int64
    var end: Int64
    /// The size of the next block: doubles up to `IDBlock.maxSize`, so a bulk insert takes
    /// few write transactions and a short session wastes few numbers.
    var nextSize: Int64
    static let firstSize: Int64 = 16
    static let maxSize: Int64 = 4096
}

/// Ids and processes (protocol.md §5): every entity table is AUTOINCREMENT, and
/// `sqlite_sequence` holds the highest number ever used or reserved. fetchd reserves a block
/// by advancing it inside a write transaction, so a plain client's insert that leaves `_pk`
/// to SQLite lands above every reserved block, and no number is ever used twice, even after
/// a delete.
extension SQLiteStore {
    /// A new permanent id, unique across every process on the file. Numbers are never handed
    /// out twice, even when the object is discarded.
    public func reserveID(for entity: String) throws(EngineError) -> ObjectID {
        if let b = idBlocks[entity], b.next < b.end {
            idBlocks[entity]!.next += 1
            return ObjectID(entity: entity, number: b.next)
        }
        let size = idBlocks[entity]?.nextSize ?? IDBlock.firstSize
        let start = try reserveBlock(entity, size)
        idBlocks[entity] = IDBlock(next: start + 1, end: start + size, nextSize: min(size * 2, IDBlock.maxSize))
        return ObjectID(entity: entity, number: start)
    }

    /// `count` consecutive numbers past every block so far; the current block keeps its own.
    public func reserveIDs(for entity: String, count: Int) throws(EngineError) -> Range<Int64> {
        guard count > 0 else { return 1..<1 }
        let start = try reserveBlock(entity, Int64(count))
        return start..<start + Int64(count)
    }

    /// Advances the entity's sequence by `size` and returns the first number of the block.
    private func reserveBlock(_ entity: String, _ size: Int64) throws(EngineError) -> Int64 {
        guard tables[entity] != nil else {
            throw EngineError(.unknownEntity, "no entity \(entity)", [("entity", .string(entity))])
        }
        let db = try connection
        let own = !db.isInTransaction
        if own { try beginImmediate(db, "reserving ids of \(entity)") }
        do {
            let last = try Self.sequence(db, entity)
            try Self.setSequence(db, entity, last + size)
            if own { try db.execute("COMMIT") }
            return last + 1
        } catch {
            if own { try? db.execute("ROLLBACK") }
            throw Self.storeError(error, "reserving ids of \(entity)")
        }
    }

    /// Gives the numbers of this store's blocks that were never handed out back to the file,
    /// when nothing was reserved or inserted above them since (so ids stay dense for a
    /// single process). Called by `close`.
    /// Best effort by design: a closed store has nothing to return, and a failure only leaves a
    /// gap in the numbers (never a number handed out twice).
    func returnUnusedIDs() {
        guard let db = try? connection, !db.isInTransaction, idBlocks.contains(where: { $0.value.next < $0.value.end })
        else { return }
        do {
            try db.transaction {
                for (entity, b) in idBlocks where b.next < b.end {
                    let table = SchemaNaming.quoted(entity)
                    let pk = SchemaNaming.quoted(SchemaNaming.primaryKey)
                    try db.prepareUncached(
                        """
                        UPDATE sqlite_sequence SET seq = ? WHERE name = ? AND seq = ?
                        AND NOT EXISTS (SELECT 1 FROM \(table) WHERE \(pk) >= ?)
                        """
                    ).run([.integer(b.next - 1), .text(entity), .integer(b.end - 1), .integer(b.next)])
                }
            }
        } catch {
            // See above: the sequence stays past the block, which is always safe.
        }
        idBlocks.removeAll()
    }

    /// The highest number used or reserved for the entity.
    static func sequence(_ db: Connection, _ entity: String) throws -> Int64 {
        let table = SchemaNaming.quoted(entity)
        let pk = SchemaNaming.quoted(SchemaNaming.primaryKey)
        let s = try db.prepare(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?1), 0), coalesce((SELECT max(\(pk)) FROM \(table)), 0))"
        )
        defer { s.reset() }
        try s.bind(.text(entity), at: 1)
        _ = try s.step()
        return s.int64(0)
    }

    static func setSequence(_ db: Connection, _ entity: String, _ value: Int64) throws {
        try db.prepare("UPDATE sqlite_sequence SET seq = ?1 WHERE name = ?2").run([.integer(value), .text(entity)])
        if db.changes == 0 {
            try db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?2, ?1)").run([
                .integer(value), .text(entity),
            ])
        }
    }

    // MARK: Opening an older store

    /// Rebuilds entity tables made before AUTOINCREMENT (same columns, rows and indexes) and
    /// moves the old per-entity counters of the metadata table into `sqlite_sequence`.
    /// Foreign keys are off meanwhile, so dropping the old table cascades nowhere.
    static func upgradeIDs(_ db: Connection, model: ObjectModel) throws {
        func plainTables() throws -> [(String, String)] {
            var out: [(String, String)] = []
            for e in model.entities {
                let s = try db.prepareUncached("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
                try s.bind(.text(e.name), at: 1)
                if try s.step(), !s.text(0).uppercased().contains("AUTOINCREMENT") { out.append((e.name, s.text(0))) }
                s.reset()
            }
            return out
        }
        let meta = SchemaNaming.quoted(SchemaNaming.metadataTable)
        let legacy = try db.prepareUncached("SELECT count(*) FROM \(meta) WHERE key LIKE 'next:%'")
        _ = try legacy.step()
        let hasLegacy = legacy.int64(0) > 0
        legacy.reset()
        guard try !plainTables().isEmpty || hasLegacy else { return }
        try db.execute("PRAGMA foreign_keys=OFF")
        defer { try? db.execute("PRAGMA foreign_keys=ON") }
        try db.transaction {
            for (name, sql) in try plainTables() {
                let table = SchemaNaming.quoted(name)
                let scratch = SchemaNaming.quoted("_fetchd_rebuild")
                let pk = "\(SchemaNaming.quoted(SchemaNaming.primaryKey)) INTEGER PRIMARY KEY"
                guard let open = sql.firstIndex(of: "("), let pkRange = sql.firstRange(of: pk) else {
                    throw EngineError(
                        .storeError, "cannot read the layout of table \(name)", [("entity", .string(name))])
                }
                let ddl =
                    "CREATE TABLE \(scratch) " + sql[open..<pkRange.upperBound] + " AUTOINCREMENT"
                    + sql[pkRange.upperBound...]
                let indexes = try db.prepareUncached(
                    "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
                try indexes.bind(.text(name), at: 1)
                var indexSQL: [String] = []
                while try indexes.step() { indexSQL.append(indexes.text(0)) }
                try db.execute(ddl)
                try db.execute("INSERT INTO \(scratch) SELECT * FROM \(table)")
                try db.execute("DROP TABLE \(table)")
                try db.execute("ALTER TABLE \(scratch) RENAME TO \(table)")
                for s in indexSQL { try db.execute(s) }
            }
            for e in model.entities {
                let saved = try db.prepareUncached("SELECT value FROM \(meta) WHERE key = ?")
                try saved.bind(.text("next:\(e.name)"), at: 1)
                let next = try saved.step() && !saved.isNull(0) ? saved.int64(0) : 1
                saved.reset()
                try setSequence(db, e.name, max(try sequence(db, e.name), next - 1))
            }
            try db.execute("DELETE FROM \(meta) WHERE key LIKE 'next:%'")
        }
    }
}
