import Model
import Postgres
import Predicates

/// The change history of the schema (PGHistorySchema.swift), read as `SQLiteStore` reads its
/// own: the same transactions, tokens, gaps, cursors and pruning.
extension PGStore {
    private static let h = PGHistorySchema.history
    private static let t = PGHistorySchema.transactions

    public var currentToken: Int64 {
        get throws(EngineError) { try currentToken(on: db()) }
    }

    /// Past the held snapshot: on the second session while one is held.
    public var newestToken: Int64 {
        get throws(EngineError) { try onUpkeepSession { c throws(EngineError) in try currentToken(on: c) } }
    }

    func currentToken(on c: PGConnection) throws(EngineError) -> Int64 {
        do { return try c.execPrepared("SELECT coalesce(max(seq), 0) FROM \(Self.h)").int64(0, 0) ?? 0 } catch {
            throw failure(error, "reading the history", session: c)
        }
    }

    public var oldestToken: Int64? {
        get throws(EngineError) {
            try run("reading the history") { c in try c.execPrepared("SELECT min(seq) FROM \(Self.h)").int64(0, 0) }
        }
    }

    /// One `max(seq)` on the history's primary key: cheap enough to poll. Own commits do not
    /// count (`commitWrite`).
    public func hasExternalChanges() throws(EngineError) -> Bool { try currentToken != seenToken }

    public func history(after token: Int64, limit: Int = .max) throws(EngineError) -> [HistoryTransaction] {
        try history(after: token, limit: limit, on: db())
    }

    func history(after token: Int64, limit: Int, on c: PGConnection) throws(EngineError) -> [HistoryTransaction] {
        let newest = try currentToken(on: c)
        let out = try reading(c, "reading the history") { c in
            let r = try c.execPrepared(
                """
                SELECT h.seq, h.txn, h.time, h.entity, h.pk, h.op, h.keys, t.author, t.origin, t.time, h.version, h.old, h.other
                FROM \(Self.h) h LEFT JOIN \(Self.t) t ON t.token = h.txn
                WHERE h.seq > $1 AND h.seq <= $2 ORDER BY h.seq
                """, [.int(token), .int(newest)])
            var assembler = HistoryAssembler(limit: limit, entities: tables, joins: joins)
            for row in r.rows {
                let recorded = RecordedHistoryRow(
                    seq: Int64(row[0]!)!, txn: row[1].flatMap { Int64($0) }, time: row[2].flatMap { Double($0) },
                    table: row[3] ?? "", pk: Int64(row[4]!)!, op: row[5] ?? "", keys: row[6], author: row[7],
                    origin: row[8], txnTime: row[9].flatMap { Double($0) }, version: row[10].flatMap { Int64($0) },
                    old: row[11], other: row[12].flatMap { Int64($0) })
                guard assembler.add(recorded) else { break }
            }
            return assembler.transactions
        }
        if out.count < limit { seenToken = newest }
        return out
    }

    public func readHistory(after token: Int64, limit: Int) throws(EngineError) -> [HistoryTransaction] {
        let seen = seenToken
        defer { seenToken = seen }
        return try onUpkeepSession { c throws(EngineError) in try history(after: token, limit: limit, on: c) }
    }

    /// Tokens are dense (`max + 1` under the writers' lock, the newest row never pruned), so
    /// a hole shows at the start.
    public func historyGap(after token: Int64) throws(EngineError) -> Bool {
        guard let oldest = try oldestToken else { return false }
        return oldest > token + 1
    }

    public func priorObjects(_ transactions: [HistoryTransaction]) throws(EngineError) -> [ObjectID: StoredObject?] {
        try priorObjectsFromHistory(transactions)
    }

    /// `old` is a JSON array of text, each value in PostgreSQL's output format.
    func decodeOld(_ old: String?, _ t: EntityTable) throws(EngineError) -> Snapshot {
        guard let old else { return [:] }
        let texts = try run("reading the history") { c in
            try c.execPrepared(
                "SELECT value FROM json_array_elements_text($1::json) WITH ORDINALITY AS e(value, n) ORDER BY n",
                [.text(old)]
            ).rows.map { $0[0] }
        }
        var values: Snapshot = [:]
        for (i, (name, type)) in HistoryNaming.columns(t.entity).enumerated() where i < texts.count {
            if let type {
                values[name] = PGValueEncoding.value(texts[i], as: .attribute(type))
            } else if let r = t.toOne.first(where: { $0.name == name }) {
                values[name] = PGValueEncoding.value(texts[i], as: .object(r.destination))
            }
        }
        return values
    }

    public func firstToken(notBefore time: Double) throws(EngineError) -> Int64 {
        try firstHistoryToken(notBefore: time)
    }

    public func purgeHistory(before token: Int64, force: Bool = false) throws(EngineError) -> Int {
        try purgeHistoryRows(before: token, force: force)
    }

    // MARK: Cursors and pruning (the rules: Core/StoreDialect.swift)

    /// The server checkpoints on its own.
    public func checkpointIfDue() {}

    /// A cursor row is this store's own: it needs no writers' lock.
    public func recordCursorIfDue() {
        guard !isWriting, let c = try? db() else { return }
        let now = StoreClock.now()
        guard upkeep.cursorDue(mergeCursor, now: now, retention) else { return }
        do { try writeCursor(c, now) } catch { _ = failure(error, "recording the history cursor") }
    }

    func dropCursor() {
        guard upkeep.cursorToken >= 0, !isWriting, let c = connection, c.isConnected else { return }
        _ = try? c.execPrepared("DELETE FROM \(PGHistorySchema.cursors) WHERE consumer = $1", [.text(origin)])
    }

    // MARK: Rows written by plain clients

    /// What the model forbids in the row of `id`: columns are typed, so only a missing
    /// required value or a reference to a row that does not exist (a plain client that
    /// dropped the foreign key) can be wrong.
    public func storedProblems(_ id: ObjectID) throws(EngineError) -> [InvalidValue] {
        guard let t = tables[id.entity] else {
            return [InvalidValue(id: id, key: nil, problem: "entity \(id.entity) is not in the model")]
        }
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        var items = t.attributes.map { "\(q($0.name)) IS NULL" }
        for r in t.toOne {
            let c = q(r.name)
            items += ["\(c) IS NULL", "\(c)", "EXISTS (SELECT 1 FROM \(q(r.destination)) d WHERE d.\(pk) = x.\(c))"]
        }
        let query =
            "SELECT \(items.isEmpty ? "1" : items.joined(separator: ", ")) FROM \(q(id.entity)) x WHERE \(pk) = $1"
        let r = try run("checking \(id)") { c in try c.execPrepared(query, [.int(id.number)]) }
        guard r.count == 1 else { return [] }
        let row = r.rows[0]
        var out: [InvalidValue] = []
        var column = 0
        for a in t.attributes {
            if row[column] == "t" && !a.optional {
                out.append(InvalidValue(id: id, key: a.name, problem: "required value missing"))
            }
            column += 1
        }
        for r in t.toOne {
            if row[column] == "t" {
                if !r.optional {
                    out.append(InvalidValue(id: id, key: r.name, problem: "required relationship missing"))
                }
            } else if row[column + 2] != "t" {
                out.append(
                    InvalidValue(
                        id: id, key: r.name,
                        problem: InvalidValue.missingTarget("\(r.destination)/\(row[column + 1] ?? "")")))
            }
            column += 3
        }
        return out
    }

    /// A LISTEN connection on the schema's channel; nil when it cannot connect now. The
    /// store's own commits (through its connection or the side one) do not wake it.
    public func makeChangeAnnouncer(log: @escaping (String) -> Void) -> (any ChangeAnnouncer)? {
        guard let listener = try? PGChangeListener(conninfo: conninfo, channel: channel, log: log) else {
            return nil
        }
        listener.ownSenders = { [weak self] in
            [self?.connection, self?.sideConnection].compactMap { c in
                guard let c, c.isConnected else { return nil }
                return c.backendPID
            }
        }
        return listener
    }
}

extension PGChangeListener: ChangeAnnouncer {}

extension PGStore: StoreDialect {
    func upsertCursor(_ c: PGConnection, token: Int64, heartbeat: Double) throws {
        try c.execPrepared(
            """
            INSERT INTO \(PGHistorySchema.cursors) (consumer, token, heartbeat) VALUES ($1, $2, $3)
            ON CONFLICT (consumer) DO UPDATE SET token = excluded.token, heartbeat = excluded.heartbeat
            """, [.text(origin), .int(token), .double(heartbeat)])
    }

    func otherCursorsMinimum(_ c: PGConnection, aliveSince heartbeat: Double) throws -> Int64? {
        try c.execPrepared(
            "SELECT min(token) FROM \(PGHistorySchema.cursors) WHERE heartbeat >= $1 AND consumer <> $2",
            [.double(heartbeat), .text(origin)]
        ).int64OrNil(0, 0)
    }

    func newestToken(_ c: PGConnection) throws -> Int64 {
        try c.execPrepared("SELECT coalesce(max(seq), 0) FROM \(PGHistorySchema.history)").int64(0, 0) ?? 0
    }

    func firstToken(_ c: PGConnection, notBefore time: Double) throws -> Int64? {
        try c.execPrepared(
            """
            SELECT h.seq FROM \(PGHistorySchema.history) h LEFT JOIN \(PGHistorySchema.transactions) t ON t.token = h.txn
            WHERE coalesce(h.time, t.time, 0) >= $1 ORDER BY h.seq LIMIT 1
            """, [.double(time)]
        ).int64OrNil(0, 0)
    }

    func deleteHistory(_ c: PGConnection, below limit: Int64) throws -> Int {
        let h = PGHistorySchema.history
        let t = PGHistorySchema.transactions
        let deleted =
            try c.execPrepared("DELETE FROM \(h) WHERE seq < $1 AND seq < (SELECT max(seq) FROM \(h))", [.int(limit)])
            .affectedRows ?? 0
        if deleted > 0 {
            try c.execPrepared(
                """
                DELETE FROM \(t) WHERE token < (SELECT max(token) FROM \(t))
                AND NOT EXISTS (SELECT 1 FROM \(h) h WHERE h.txn = \(t).token)
                """)
        }
        return deleted
    }

    func inWriteTransaction<T>(_ c: PGConnection, _ what: String, _ body: (PGConnection) throws -> T)
        throws(EngineError) -> T
    {
        do {
            // lock_timeout 0 would wait forever: 1 ms is the shortest wait.
            try c.exec("BEGIN; SET LOCAL lock_timeout = '\(max(1, busyTimeout))ms'")
            try c.execPrepared(lockSQL, [.text(schema)])
            let result = try body(c)
            try c.exec("COMMIT")
            return result
        } catch {
            let e = failure(error, what, session: c)
            if c.isConnected && c.inTransaction { _ = try? c.exec("ROLLBACK") }
            throw e
        }
    }
}
