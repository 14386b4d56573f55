import Model
import Postgres
import Predicates

/// Numbers of one entity taken from its sequence and not yet handed out. Taken in blocks
/// (16, doubling to 4096, as `IDBlock`), each number by `nextval`, so concurrent writers
/// never get the same one even when their blocks interleave. As on a file, a block in use gets
/// the next one as its spare in the next save, or when its spare is started and the writers'
/// lock is free: an insert waits for the lock only when it runs past both (protocol.md §5, "A
/// PostgreSQL server", Ids).
struct PGIDQueue {
    var numbers: [Int64] = []
    var next = 0
    var nextSize = IDBlock.firstSize
    var spare: [Int64]? = nil

    var wantsSpare: Bool { spare == nil && IDBlock.wantsSpare(left: Int64(numbers.count - next), nextSize: nextSize) }
}

/// Writes: `beginWrite` takes the schema's advisory lock (every writer does, plain clients
/// through a trigger), so what a save reads inside it cannot change before its COMMIT and
/// history tokens follow commit order; `SET LOCAL fetchd.txn` gives the triggers its token.
extension PGStore {
    public var isWriting: Bool { writeToken != nil }

    /// `SELECT pg_advisory_xact_lock(...)` for this schema.
    var lockSQL: String { "SELECT pg_advisory_xact_lock(\(PGHistorySchema.lockClass), hashtext($1))" }

    public func reserveID(for entity: String) throws(EngineError) -> ObjectID {
        var queue = idQueues[entity] ?? PGIDQueue()
        var startedSpare = false
        if queue.next == queue.numbers.count {
            if let spare = queue.spare {
                queue = PGIDQueue(numbers: spare, nextSize: queue.nextSize)
                startedSpare = true
            } else {
                let size = queue.nextSize
                queue.numbers = try takingNumbers(of: entity) { c, sequence in try Self.take(size, c, sequence) }
                queue.next = 0
                queue.nextSize = min(size * 2, IDBlock.maxSize)
            }
        }
        let number = queue.numbers[queue.next]
        queue.next += 1
        idQueues[entity] = queue
        if startedSpare { reserveSparesIfFree() }
        return ObjectID(entity: entity, number: number)
    }

    /// The entity's sequence as a SQL literal (for `nextval`, `setval`).
    private static func sequenceLiteral(_ entity: String) -> String {
        HistoryNaming.literal(SchemaNaming.quoted(PGSchema.sequence(entity)))
    }

    /// `count` numbers of the sequence (a SQL literal), each by `nextval`.
    private static func take(_ count: Int64, _ c: PGConnection, _ sequence: String) throws -> [Int64] {
        try c.execPrepared("SELECT nextval(\(sequence)) FROM generate_series(1, $1::int)", [.int(count)])
            .rows.map { Int64($0[0]!)! }
    }

    /// Inside a transaction that holds the writers' lock: the next block of every queue that
    /// wants a spare, by entity, for `installSpares` once the transaction has committed.
    private func sparesWanted(_ c: PGConnection) throws -> [(entity: String, numbers: [Int64])] {
        try idQueues.filter(\.value.wantsSpare).keys.sorted().map { entity in
            (entity, try Self.take(idQueues[entity]!.nextSize, c, Self.sequenceLiteral(entity)))
        }
    }

    private func installSpares(_ spares: [(entity: String, numbers: [Int64])]) {
        for (entity, numbers) in spares where !numbers.isEmpty {
            idQueues[entity]?.spare = numbers
            idQueues[entity]?.nextSize = min(Int64(numbers.count) * 2, IDBlock.maxSize)
        }
    }

    /// Spares in a transaction of their own, only if the writers' lock is free now (never
    /// waiting), when an insert starts a spare. A busy schema leaves them to the next save.
    private func reserveSparesIfFree() {
        guard !isWriting, idQueues.values.contains(where: \.wantsSpare), let c = try? upkeepSession() else { return }
        do {
            try c.exec("BEGIN")
            let free = try c.execPrepared(
                "SELECT pg_try_advisory_xact_lock(\(PGHistorySchema.lockClass), hashtext($1))", [.text(schema)])
            guard free.rows.first?.first == "t" else {
                try c.exec("ROLLBACK")
                return
            }
            let spares = try sparesWanted(c)
            try c.exec("COMMIT")
            installSpares(spares)
        } catch {
            // Busy or unreachable: the spares are taken later, when a save holds the lock.
            if c.isConnected && c.inTransaction { _ = try? c.exec("ROLLBACK") }
        }
    }

    /// `count` consecutive numbers in one statement: under the writers' lock no other taker
    /// moves the sequence between its `nextval` and `setval`.
    public func reserveIDs(for entity: String, count: Int) throws(EngineError) -> Range<Int64> {
        guard count > 0 else { return 1..<1 }
        let last = try takingNumbers(of: entity) { c, sequence in
            try c.execPrepared(
                "SELECT setval(\(sequence), nextval(\(sequence)) + $1::bigint - 1)", [.int(Int64(count))]
            ).int64OrNil(0, 0)
        }
        guard let last else { throw EngineError(.storeError, "reserving ids of \(entity) gave no number") }
        return last - Int64(count) + 1..<last + 1
    }

    /// Runs `take` (given the connection and the entity's sequence as a SQL literal) under
    /// the writers' lock, as every other taker of numbers (a plain client's insert, through
    /// its statement trigger): the insert trigger's move of the sequence past a number a
    /// plain client chose then never goes back below one handed out here. Inside the open
    /// write transaction, or in one of its own.
    private func takingNumbers<T>(of entity: String, _ take: (PGConnection, String) throws -> T)
        throws(EngineError) -> T
    {
        guard tables[entity] != nil else {
            throw EngineError(.unknownEntity, "no entity \(entity)", [("entity", .string(entity))])
        }
        let sequence = Self.sequenceLiteral(entity)
        // The lock is held until the commit: in the open write, else on the upkeep session.
        return try inOpenOrOwnTransaction("reserving ids of \(entity)") { c in try take(c, sequence) }
    }

    public func beginWrite(author: String?) throws(EngineError) {
        guard writeToken == nil else { return }
        releaseSnapshot()
        let c: PGConnection
        do throws(EngineError) { c = try db() } catch {
            afterWriteEnded(tokenInWrite: nil)
            throw error
        }
        do {
            // lock_timeout 0 would wait forever: 1 ms is the shortest wait.
            try c.exec("BEGIN; SET LOCAL lock_timeout = '\(max(1, busyTimeout))ms'")
            try c.execPrepared(lockSQL, [.text(schema)])
            // Under the lock: the next token, recorded and given to the triggers, and the newest
            // history token before this write (`commitWrite`).
            let r = try c.execPrepared(
                """
                WITH t AS (
                  INSERT INTO \(PGHistorySchema.transactions) (token, author, origin, time)
                  SELECT coalesce(max(token), 0) + 1, $1, $2, extract(epoch FROM clock_timestamp())
                  FROM \(PGHistorySchema.transactions) RETURNING token)
                SELECT t.token, set_config('fetchd.txn', t.token::text, true),
                  (SELECT coalesce(max(seq), 0) FROM \(PGHistorySchema.history)) FROM t
                """, [author.map(PGValue.text), .text(origin)])
            writeToken = r.int64(0, 0)!
            writeBase = r.int64(0, 2)!
        } catch {
            let e = failure(error, "the save was not written")
            if c.isConnected { _ = try? c.exec("ROLLBACK") }
            afterWriteEnded(tokenInWrite: nil)
            throw e
        }
    }

    /// Announces the commit (NOTIFY, delivered at COMMIT) and commits; on failure (a deferred
    /// foreign key, a lost connection before COMMIT) nothing was written. A connection lost
    /// during COMMIT leaves its outcome unknown: a new session looks for the transaction's
    /// token row (PGStore+CommitOutcome.swift), and the save succeeded when it is there.
    public func commitWrite() throws(EngineError) {
        guard let token = writeToken else { return }
        let c = try db()
        writeToken = nil
        var newest: Int64? = writeBase
        defer { afterWriteEnded(tokenInWrite: newest) }
        do {
            // Upkeep (cursor, pruning) and spare ids never fail a save: each savepoint undoes
            // only itself. The lock is held anyway, so spares cost no wait here.
            if upkeepDue { try Self.besideTheSave(c, "fetchd_upkeep") { try keepHistory(c) } }
            var spares: [(entity: String, numbers: [Int64])] = []
            if idQueues.values.contains(where: \.wantsSpare) {
                try Self.besideTheSave(c, "fetchd_ids") { spares = try sparesWanted(c) }
            }
            let r = try c.execPrepared(
                "SELECT pg_notify($1, t::text), t FROM (SELECT coalesce(max(seq), 0) AS t FROM \(PGHistorySchema.history)) AS h",
                [.text(channel)])
            do {
                try c.exec("COMMIT")
            } catch {
                // Sent, then the connection broke: the server may have committed.
                guard error.connectionBroken || !c.isConnected else { throw error }
                try settleLostCommit(token: token, lost: failure(error, "the save was not written"), cause: error)
            }
            installSpares(spares)
            newest = r.int64(0, 1)
            // Own commits are not news: unless someone committed before this write began.
            if seenToken == writeBase { seenToken = r.int64(0, 1) ?? seenToken }
        } catch {
            let e = failure(error, "the save was not written")
            if c.isConnected && c.inTransaction { _ = try? c.exec("ROLLBACK") }
            throw e
        }
    }

    /// Runs `body` in a savepoint of the open write: when it fails (but the connection
    /// stands) only what it did is undone, and the save goes on.
    private static func besideTheSave(_ c: PGConnection, _ name: String, _ body: () throws -> Void) throws {
        try c.exec("SAVEPOINT \(name)")
        do {
            try body()
            try c.exec("RELEASE SAVEPOINT \(name)")
        } catch let e as PGError where !e.connectionBroken {
            try c.exec("ROLLBACK TO SAVEPOINT \(name)")
        }
    }

    public func rollbackWrite() {
        guard writeToken != nil else { return }
        writeToken = nil
        if let c = connection, c.isConnected { _ = try? c.exec("ROLLBACK") }
        afterWriteEnded(tokenInWrite: writeBase)
    }

    /// Writes the batch in one transaction (or as part of the one `beginWrite` opened): all
    /// of it or nothing. The triggers record the history.
    public func write(_ batch: StoreBatch) throws(EngineError) {
        guard !batch.isEmpty else { return }
        let own = !isWriting
        if own { try beginWrite(author: batch.author) }
        let c = try db()
        do {
            var k = 0
            let inserts = batch.inserts
            var remake = BulkRemake()
            var progress = RowProgress(total: inserts.count)
            while k < inserts.count {
                progress.at(k)
                let entity = inserts[k].0.entity
                let (t, s) = try entityTables(entity)
                var end = k + 1
                while end < inserts.count && inserts[end].0.entity == entity { end += 1 }
                if end - k >= Self.copyThreshold {
                    progress.phase("copying \(end - k) rows")
                    try copyInserts(c, t, inserts[k..<end], &remake)
                    for (id, values) in inserts[k..<end] { try writeLinks(c, s, id, values) }
                    k = end
                    continue
                }
                // 32 rows per statement, or one: two prepared statements per entity.
                end = end - k >= 32 ? k + 32 : k + 1
                var params: [PGValue?] = []
                for (id, values) in inserts[k..<end] {
                    params.append(.int(id.number))
                    params += Self.columnParameters(t, values)
                }
                try c.execPrepared(s.insert(rows: end - k), params)
                for (id, values) in inserts[k..<end] { try writeLinks(c, s, id, values) }
                k = end
            }
            if !remake.isEmpty { progress.phase("rebuilding keys and indexes") }
            try remake.run(c)
            for (id, values) in batch.updates {
                let (t, s) = try entityTables(id.entity)
                let r = try c.execPrepared(s.update, [.int(id.number)] + Self.columnParameters(t, values))
                guard r.affectedRows == 1 else {
                    throw EngineError(.storeError, "\(id) is not in the store", [("id", .string(id.description))])
                }
                try writeLinks(c, s, id, values)
            }
            for id in batch.deletes {
                let (_, s) = try entityTables(id.entity)
                for sql in s.unlinkAll { try c.execPrepared(sql, [.int(id.number)]) }
                try c.execPrepared(s.delete, [.int(id.number)])
            }
            if own { try commitWrite() }
        } catch {
            let e = failure(error, "the save was not written")
            rollbackWrite()
            throw e
        }
    }

    /// What bulk loads dropped for their COPYs, made again once every row of the batch is in.
    struct BulkRemake {
        var keys: [(entity: String, constraint: String)] = []
        var indexed: [Entity] = []
        var isEmpty: Bool { keys.isEmpty && indexed.isEmpty }

        func run(_ c: PGConnection) throws {
            guard !keys.isEmpty || !indexed.isEmpty else { return }
            // CREATE INDEX and ALTER TABLE refuse a table with foreign-key checks still
            // pending: they run now, then checks wait for COMMIT again. The keys first: a
            // number taken twice fails there.
            _ = try c.exec("SET CONSTRAINTS ALL IMMEDIATE")
            for (entity, constraint) in keys {
                _ = try c.exec(
                    "ALTER TABLE \(PGSchema.q(entity)) ADD CONSTRAINT \(PGSchema.q(constraint)) PRIMARY KEY (\(PGSchema.q(SchemaNaming.primaryKey)))"
                )
            }
            for e in indexed { for sql in PGSchema.indexes(e) { _ = try c.exec(sql) } }
            _ = try c.exec("SET CONSTRAINTS ALL DEFERRED")
        }
    }

    /// Many new rows of one entity in one COPY. A bulk load (`isBulkLoad`) first drops what
    /// would be kept up row by row, noting in `remake` what to make again after the batch:
    /// the indexes, and the primary key when no foreign key needs it (keeping its B-tree up
    /// costs the COPY about as much again as writing the rows; one sort after, a third). When
    /// its numbers are one run it also records that run itself with the insert trigger
    /// dropped for the COPY (the trigger would keep every new row in a transition table only
    /// to find the run's ends) and made again at once, in this transaction, so no other
    /// session sees it missing.
    private func copyInserts(
        _ c: PGConnection, _ t: EntityTable, _ rows: ArraySlice<(ObjectID, Snapshot)>, _ remake: inout BulkRemake
    ) throws {
        let entity = t.entity.name
        let bulk = try isBulkLoad(c, t.entity, rows: rows.count)
        if bulk && !PGSchema.indexes(t.entity).isEmpty {
            for sql in PGSchema.dropIndexes(t.entity) { _ = try c.exec(sql) }
            remake.indexed.append(t.entity)
        }
        let run = bulk ? Self.numberRun(rows) : nil
        if run != nil {
            _ = try c.exec("DROP TRIGGER \(PGHistorySchema.insertTriggerName(entity)) ON \(PGSchema.q(entity))")
        }
        if bulk, let key = try droppablePrimaryKey(c, entity) {
            _ = try c.exec("ALTER TABLE \(PGSchema.q(entity)) DROP CONSTRAINT \(PGSchema.q(key))")
            remake.keys.append((entity, key))
        }
        try c.copyRowsBinary(
            into: entity, columns: [SchemaNaming.primaryKey] + t.attributes.map(\.name) + t.toOne.map(\.name), rows
        ) { row, buffer in try Self.copyRow(t, row.0, row.1, into: &buffer) }
        guard let run else { return }
        _ = try c.execPrepared(
            PGHistorySchema.recordInsertRun,
            [
                .int(writeToken ?? 0), .text(entity), .int(run.lowerBound),
                run.count > 1 ? .int(run.upperBound - 1) : nil,
            ])
        _ = try c.exec(PGHistorySchema.insertTrigger(PGSchema.q(entity), entity))
    }

    /// How many consecutive new rows of one entity go in by COPY rather than INSERTs.
    static let copyThreshold = 256

    func entityTables(_ entity: String) throws(EngineError) -> (EntityTable, PGEntitySQL) {
        guard let t = tables[entity], let s = sql[entity] else {
            throw EngineError(.unknownEntity, "no entity \(entity)", [("entity", .string(entity))])
        }
        return (t, s)
    }

    /// The attribute and to-one values of a snapshot as parameters, in column order.
    static func columnParameters(_ t: EntityTable, _ values: Snapshot) -> [PGValue?] {
        var out: [PGValue?] = []
        out.reserveCapacity(t.attributes.count + t.toOne.count)
        for a in t.attributes { out.append(PGValueEncoding.parameter(values[a.name] ?? .null).map(PGValue.text)) }
        for r in t.toOne { out.append(PGValueEncoding.parameter(values[r.name] ?? .null).map(PGValue.text)) }
        return out
    }

    /// A new row in COPY's binary format, columns in COPY order (key, attributes, to-ones),
    /// each value as its column's type (`PGValueEncoding.columnType`) sends it: the server
    /// parses no text, and nothing is formatted or escaped here.
    static func copyRow(_ t: EntityTable, _ id: ObjectID, _ values: Snapshot, into buffer: inout PGCopyBinaryBuffer)
        throws(EngineError)
    {
        buffer.row(fields: 1 + t.attributes.count + t.toOne.count)
        buffer.int8(id.number)
        for a in t.attributes {
            let v = values[a.name] ?? .null
            guard copyValue(v, a.type, into: &buffer) else { throw unfit(id, a.name, v) }
        }
        for r in t.toOne {
            switch values[r.name] ?? .null {
            case .object(let target): buffer.int8(target.number)
            case .null: buffer.null()
            case let v: throw unfit(id, r.name, v)
            }
        }
    }

    /// Appends `v` as a column of `type`'s PostgreSQL type; false when it is not a value
    /// of that type (the checks before a write make that an internal error).
    private static func copyValue(_ v: Value, _ type: AttributeType, into buffer: inout PGCopyBinaryBuffer) -> Bool {
        switch (type, v) {
        case (_, .null): buffer.null()
        case (.integer, .integer(let i)): buffer.int8(i)
        case (.double, .double(let d)), (.double, .date(let d)), (.date, .date(let d)), (.date, .double(let d)):
            buffer.float8(d)
        case (.double, .integer(let i)), (.date, .integer(let i)): buffer.float8(Double(i))
        case (.boolean, .bool(let b)): buffer.bool(b)
        case (.string, .string(let s)), (.string, .uuid(let s)), (.uuid, .uuid(let s)), (.uuid, .string(let s)):
            buffer.text(s)
        case (.binary, .binary(let bytes)): bytes.withUnsafeBufferPointer { buffer.raw($0) }
        default: return false
        }
        return true
    }

    private static func unfit(_ id: ObjectID, _ key: String, _ v: Value) -> EngineError {
        EngineError(
            .storeError, "\(id).\(key) holds a value its column cannot take: \(v)",
            [("id", .string(id.description)), ("key", .string(key))])
    }

    /// Whether the rows are a bulk load: many, and at least as many as the table holds. A
    /// bulk load drops the entity's indexes before its COPY; `write` builds them again after
    /// its inserts, in the same transaction. One sort of the whole table costs a fraction of
    /// keeping a B-tree up row by row in random key order. Other sessions' reads of the
    /// entity wait until the commit (DROP INDEX and DROP TRIGGER lock the table), as a
    /// file's readers never do: the price of a bulk load.
    private func isBulkLoad(_ c: PGConnection, _ e: Entity, rows: Int) throws -> Bool {
        try BulkIndexPolicy.rebuilds(rows: rows) {
            // Counting stops past `rows`: the question is only whether the table holds fewer.
            let held = try c.execPrepared(
                "SELECT count(*) FROM (SELECT 1 FROM \(PGSchema.q(e.name)) LIMIT \(rows + 1)) AS held")
            return Int(held.int64(0, 0) ?? 0)
        }
    }

    /// The name of the entity's primary key constraint when the table is in no foreign key:
    /// none refers to it (a to-one or a join table, of another entity or its own) and it has
    /// none of its own, so no constraint needs the key and no check of its rows is pending
    /// (ALTER TABLE refuses a table with pending checks). Else nil.
    func droppablePrimaryKey(_ c: PGConnection, _ entity: String) throws -> String? {
        let r = try c.execPrepared(
            """
            SELECT p.conname FROM pg_constraint p WHERE p.conrelid = $1::regclass AND p.contype = 'p'
              AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f'
                AND (f.confrelid = p.conrelid OR f.conrelid = p.conrelid))
            """, [.text(PGSchema.q(entity))])
        return r.count > 0 ? r[0, 0] : nil
    }

    /// The numbers of the rows when they are consecutive and ascending (a reservation's
    /// run), else nil.
    static func numberRun(_ rows: ArraySlice<(ObjectID, Snapshot)>) -> Range<Int64>? {
        guard let first = rows.first?.0.number else { return nil }
        var next = first
        for (id, _) in rows {
            guard id.number == next else { return nil }
            next += 1
        }
        return first..<next
    }

    /// An object's links become exactly the snapshot's: links no longer there are removed,
    /// new ones added (unchanged ones stay, so they leave no history).
    private func writeLinks(_ c: PGConnection, _ s: PGEntitySQL, _ id: ObjectID, _ values: Snapshot) throws {
        for (i, (relationship, unlink)) in s.unlinkOthers.enumerated() {
            guard case .objects(let targets)? = values[relationship] else { continue }
            let array = PGValue.ints(targets.map(\.number))
            try c.execPrepared(unlink, [.int(id.number), array])
            if !targets.isEmpty { try c.execPrepared(s.link[i].sql, [.int(id.number), array]) }
        }
    }
}
