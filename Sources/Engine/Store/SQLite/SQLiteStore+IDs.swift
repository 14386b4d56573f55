import Model
import SQLite

/// Ids and processes (protocol.md §5): every entity table is AUTOINCREMENT, and
/// `sqlite_sequence` holds the highest number ever used or reserved. fetchd reserves a block
/// by advancing it inside a write transaction, so a plain client's insert that leaves `_pk`
/// to SQLite lands above every reserved block, and no number is ever used twice, even after
/// a delete.
extension SQLiteStore {
    /// A new permanent id, unique across every process on the file. Numbers are never handed
    /// out twice, even when the object is discarded.
    ///
    /// Numbers come from blocks reserved ahead of need (`reserveAhead`, in every save and at
    /// open), so an insert waits for the write lock only when a session inserts more of one
    /// entity between two saves than its blocks hold (protocol.md §5, "Ids and processes").
    public func reserveID(for entity: String) throws(EngineError) -> ObjectID {
        if let b = idBlocks[entity] {
            if b.next < b.end {
                idBlocks[entity]!.next += 1
                return ObjectID(entity: entity, number: b.next)
            }
            if let spare = b.spare {
                idBlocks[entity] = IDBlock(spare.lowerBound + 1..<spare.upperBound, nextSize: b.nextSize)
                reserveAheadIfFree()
                return ObjectID(entity: entity, number: spare.lowerBound)
            }
        }
        let size = idBlocks[entity]?.nextSize ?? IDBlock.firstSize
        let start = try reserveBlock(entity, size)
        idBlocks[entity] = IDBlock(start + 1..<start + size, nextSize: min(size * 2, IDBlock.maxSize))
        return ObjectID(entity: entity, number: start)
    }

    /// Inside a write transaction (the lock is held anyway): every entity without a block gets
    /// one, and every block more than half used gets the next as its spare. Returns what to
    /// install once the transaction commits (a rolled-back reservation must not be used).
    func reservationsAhead(_ db: Connection) throws -> [(entity: String, numbers: Range<Int64>)] {
        var reserved: [(entity: String, numbers: Range<Int64>)] = []
        for e in model.entities {
            let entity = e.name
            let block = idBlocks[entity]
            guard block?.wantsSpare ?? true else { continue }
            // An entity without a block gets its first block and that block's spare at once.
            let size = block?.nextSize ?? IDBlock.firstSize * 3
            let last = try Self.sequence(db, entity)
            try Self.setSequence(db, entity, last + size)
            reserved.append((entity, last + 1..<last + 1 + size))
        }
        return reserved
    }

    /// Takes reservations made by a committed transaction.
    func install(_ reserved: [(entity: String, numbers: Range<Int64>)]) {
        for (entity, numbers) in reserved {
            let size = Int64(numbers.count)
            if var block = idBlocks[entity] {
                block.spare = numbers
                block.nextSize = min(size * 2, IDBlock.maxSize)
                idBlocks[entity] = block
            } else {
                // The first block (16) and its spare (32), reserved as one run.
                let split = numbers.lowerBound + IDBlock.firstSize
                var block = IDBlock(numbers.lowerBound..<split, nextSize: IDBlock.firstSize * 4)
                block.spare = split..<numbers.upperBound
                idBlocks[entity] = block
            }
        }
    }

    /// Reservations ahead of need in a write transaction of its own, only if the lock is free
    /// now (never waiting): at open, and when an insert starts a block's spare. A busy file
    /// leaves them to the next save, or to an insert that has run out.
    func reserveAheadIfFree() {
        guard !isWriting, idBlocks.count < tables.count || idBlocks.values.contains(where: \.wantsSpare),
            let db = try? upkeepSession()
        else { return }
        do {
            try db.execute("PRAGMA busy_timeout=0")
            defer { try? db.execute("PRAGMA busy_timeout=\(busyTimeoutMilliseconds)") }
            try db.execute("BEGIN IMMEDIATE")
            do {
                let reserved = try reservationsAhead(db)
                try db.execute("COMMIT")
                install(reserved)
            } catch {
                try? db.execute("ROLLBACK")
            }
        } catch {
            // Busy or read-only: the blocks are reserved later, when a save holds the lock.
        }
    }

    /// `count` consecutive numbers: from the current block when it holds them; else a run that
    /// continues the current block when that is the top of the sequence (so a fresh store's
    /// first batch is numbered from 1), or starts past every block so far.
    public func reserveIDs(for entity: String, count: Int) throws(EngineError) -> Range<Int64> {
        guard count > 0 else { return 1..<1 }
        let n = Int64(count)
        if let b = idBlocks[entity], b.contiguousEnd - b.next >= n {
            // From the block, then on into its spare when the two are one run.
            idBlocks[entity] = IDBlock(b.next + n..<b.contiguousEnd, nextSize: b.nextSize)
            if b.contiguousEnd == b.end { idBlocks[entity]!.spare = b.spare }
            return b.next..<b.next + n
        }
        let start = try reserveBlock(entity, n, continuing: idBlocks[entity])
        return start..<start + n
    }

    /// Advances the entity's sequence by `size` and returns the first number of the block;
    /// with `continuing`, a block still holding numbers on top of the sequence, the numbers
    /// start at its next one instead (it is used up).
    private func reserveBlock(_ entity: String, _ size: Int64, continuing block: IDBlock? = nil)
        throws(EngineError) -> Int64
    {
        guard tables[entity] != nil else {
            throw EngineError(.unknownEntity, "no entity \(entity)", [("entity", .string(entity))])
        }
        // Inside a write, in it; else in a transaction of its own that leaves the snapshot be.
        return try inOpenOrOwnTransaction("reserving ids of \(entity)") { db in
            let last = try Self.sequence(db, entity)
            var start = last + 1
            if let block, block.next < block.contiguousEnd, last == block.contiguousEnd - 1 {
                start = block.next
                idBlocks[entity] = IDBlock(block.contiguousEnd..<block.contiguousEnd, nextSize: block.nextSize)
            }
            try Self.setSequence(db, entity, start + size - 1)
            return start
        }
    }

    /// Gives the numbers of this store's blocks that were never handed out back to the file,
    /// when nothing was reserved or inserted above them since (so ids stay dense for a
    /// single process). Called by `close`.
    /// Best effort by design: a closed store has nothing to return, and a failure only leaves a
    /// gap in the numbers (never a number handed out twice).
    func returnUnusedIDs() {
        guard let db = try? connection, !db.isInTransaction,
            idBlocks.contains(where: { $0.value.next < $0.value.end || $0.value.spare != nil })
        else { return }
        do {
            try db.transaction {
                for (entity, b) in idBlocks {
                    // What goes back is the unused top of the sequence: the spare (the block
                    // reserved last), and the rest of the current block only when no other
                    // process reserved numbers between the two.
                    let unused: ClosedRange<Int64>
                    if let spare = b.spare {
                        unused = (spare.lowerBound == b.end ? b.next : spare.lowerBound)...(spare.upperBound - 1)
                    } else if b.next < b.end {
                        unused = b.next...(b.end - 1)
                    } else {
                        continue
                    }
                    let table = SchemaNaming.quoted(entity)
                    let pk = SchemaNaming.quoted(SchemaNaming.primaryKey)
                    try db.prepareUncached(
                        """
                        UPDATE sqlite_sequence SET seq = ? WHERE name = ? AND seq = ?
                        AND NOT EXISTS (SELECT 1 FROM \(table) WHERE \(pk) >= ?)
                        """
                    ).run([
                        .integer(unused.lowerBound - 1), .text(entity), .integer(unused.upperBound),
                        .integer(unused.lowerBound),
                    ])
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
