import Model
import Predicates
import SQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite file (or `:memory:` database) behind every context: schema, light migration,
/// reads of single objects by id, id reservation and atomic writes. Prepared statements are
/// cached by the connection, so each SQL text is prepared once.
public final class SQLiteStore: Store {
    public let path: String
    public let model: ObjectModel
    /// Whether opening changed the stored model (light migration).
    public let migrated: Bool
    /// Goes up by one with every model change of the file.
    public let modelVersion: Int64

    private var handle: Connection?
    let tables: [String: EntityTable]
    /// The SQL of each entity's table.
    let sqlTables: [String: SQLiteTable]
    /// Ids reserved in the file and not yet handed out (IDAllocation.swift).
    var idBlocks: [String: IDBlock] = [:]
    /// The open write transaction's `_fetchd_transactions` token (WriteTransaction.swift).
    var writeToken: Int64?
    var busyTimeoutMilliseconds = 5000
    /// Tells this store's transactions from other processes' in the history.
    public let origin: String
    /// `PRAGMA data_version` when the history was last read (History.swift).
    var seenDataVersion: Int64 = 0
    /// The history token up to which external transactions were merged (ObjectGraph).
    public var mergeCursor: Int64 = 0
    /// When the cursor was last recorded and the history last pruned (HistoryCursors.swift).
    var upkeep = HistoryUpkeep()
    /// How long the history is kept (HistoryCursors.swift).
    public var retention = HistoryRetention()
    /// While set, reads answer as the store was before the merged transactions (PriorView.swift).
    public var overlay: [ObjectID: StoredObject?]? = nil
    /// While set, rows a batch request read or wrote, as a read returns them: the contexts
    /// taking the batch in read them without a query each.
    public var justWritten: JustWritten? = nil
    /// Whether a read transaction is kept open between merges (ReadSnapshot.swift).
    public var readSnapshots = ReadSnapshots.off
    var snapshotHeld = false
    /// data_version in the held snapshot, and inside the open write.
    var snapshotDataVersion: Int64 = 0
    var writeDataVersion: Int64?
    /// Another connection committed between the end of a write and the next snapshot.
    public var owesMerge = false
    /// The second connection for upkeep writes while a snapshot is held.
    var sideHandle: Connection?
    /// A checkpoint copied every frame while the snapshot was held: the next write begins
    /// on a fresh read, so SQLite can start the WAL over (`checkpointIfDue`).
    var writeBeginsAfresh = false
    /// Told of each commit of this store's connections while it holds the write lock: the
    /// file watch drops the wake-up of its own writes (SQLiteStore+Watch.swift).
    var ownCommits: OwnCommits?

    /// Opens (or creates) the store at `path` for `model`. `configure` runs on the new
    /// connection before any query: the place to register SQL functions and collations.
    public static func open(
        path: String = ":memory:", model: ObjectModel,
        configure: (Connection) throws -> Void = { _ in }
    ) throws(EngineError) -> SQLiteStore {
        try model.validate()
        let db: Connection
        do { db = try Connection(path: path) } catch { throw storeError(error, "cannot open \(path)") }
        do {
            try db.execute("PRAGMA busy_timeout=5000")
            // Switching a new file to WAL can be refused at once (SQLITE_BUSY, no busy wait)
            // while another process switches it: try again for up to the busy timeout.
            var attempts = 0
            while true {
                do {
                    try db.execute("PRAGMA journal_mode=WAL")
                    break
                } catch  where error.code & 0xff == 5 && attempts < 250 {
                    attempts += 1
                    usleep(20_000)
                }
            }
            // A 64 MiB page cache (SQLite's default is 2 MiB): a big write's index pages stay
            // in memory instead of spilling to the WAL before the commit.
            try db.execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-\(pageCacheKiB)")
        } catch { throw storeError(error, "cannot configure \(path)") }
        do { try configure(db) } catch let e as EngineError { throw e } catch {
            throw EngineError(.storeError, "configuring the connection failed: \(error)", [("path", .string(path))])
        }
        let (migrated, version) = try prepareSchema(db, model: model, path: path)
        do {
            try upgradeIDs(db, model: model)
            if try !HistorySchema.isInstalled(db, model: model) {
                try db.transaction { try HistorySchema.install(db, model: model) }
            }
            // The triggers are for other writers: this connection records its own rows.
            db.setTriggersEnabled(false)
        } catch { throw storeError(error, "cannot install the change history of \(path)") }
        let store = try SQLiteStore(db, path: path, model: model, migrated: migrated, modelVersion: version)
        // A reader from the start: pruning keeps what it has not merged (HistoryCursors.swift).
        store.recordCursorIfDue()
        // Ids ahead of need: a first insert then never waits for another process's write.
        store.reserveAheadIfFree()
        return store
    }

    private init(_ db: Connection, path: String, model: ObjectModel, migrated: Bool, modelVersion: Int64)
        throws(EngineError)
    {
        self.handle = db
        self.path = path
        self.model = model
        self.migrated = migrated
        self.modelVersion = modelVersion
        var tables: [String: EntityTable] = [:]
        for e in model.entities { tables[e.name] = EntityTable(e, in: model) }
        self.tables = tables
        sqlTables = tables.mapValues(SQLiteTable.init)
        self.origin = StoreClock.newOrigin()
        self.seenDataVersion = (try? Self.dataVersion(db)) ?? 0
        self.mergeCursor = try currentToken
    }

    deinit { handle = nil }

    /// The open connection (for queries the contexts compile).
    public var connection: Connection {
        get throws(EngineError) {
            guard let handle else { throw EngineError(.storeClosed, "the store is closed", [("path", .string(path))]) }
            return handle
        }
    }

    public var isOpen: Bool { handle != nil }

    /// Finalizes statements and closes the file (a WAL file is checkpointed and removed).
    /// Reserved numbers never handed out go back to the file first.
    public func close() {
        readSnapshots = .off
        rollbackWrite()
        releaseSnapshot()
        sideHandle = nil
        returnUnusedIDs()
        dropCursor()
        handle = nil
    }

    // MARK: Reading

    /// The object's values and version, or nil when the store has no such object.
    public func read(_ id: ObjectID) throws(EngineError) -> StoredObject? { try readObject(id) }

    /// The attribute and to-one columns of a row (in `EntityTable` order), from `column` on.
    /// A copy of the table's template filled by position (`EntityTable.rowTemplate`): a copy
    /// keeps the template's layout, so its slots stay valid in it.
    static func rowValues(_ s: Statement, _ t: EntityTable, from column: Int32) -> Snapshot {
        var values = t.rowTemplate
        var slot = 0
        var column = column
        for a in t.attributes {
            values.values[t.rowSlots[slot]] = ValueEncoding.value(s.value(column), as: a.type)
            slot += 1
            column += 1
        }
        for r in t.toOne {
            values.values[t.rowSlots[slot]] = ValueEncoding.reference(s.value(column), to: r.destination)
            slot += 1
            column += 1
        }
        return values
    }

    func readRow(_ id: ObjectID) throws(EngineError) -> StoredObject? {
        guard let t = sqlTables[id.entity] else { return nil }
        let db = try connection
        do {
            let s = try db.prepare(t.selectByID)
            defer { s.reset() }
            try s.bind(.integer(id.number), at: 1)
            guard try s.step() else { return nil }
            var values = Self.rowValues(s, t.layout, from: 1)
            let version = s.int64(0)
            for (r, sql) in t.toMany {
                let m = try db.prepare(sql)
                defer { m.reset() }
                try m.bind(.integer(id.number), at: 1)
                var ids: [ObjectID] = []
                while try m.step() { ids.append(ObjectID(entity: r.destination, number: m.int64(0))) }
                values[r.name] = .objects(ids)
            }
            return StoredObject(values: values, version: version)
        } catch { throw Self.storeError(error, "reading \(id)") }
    }

    /// The destinations of a to-many relationship of a stored object, ascending.
    public func relatedIDs(of id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID] {
        try readRelatedIDs(id, relationship)
    }

    func readRelated(_ id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID] {
        guard let t = sqlTables[id.entity],
            let (r, sql) = t.toMany.first(where: { $0.relationship.name == relationship })
        else { return [] }
        do {
            let m = try connection.prepare(sql)
            defer { m.reset() }
            try m.bind(.integer(id.number), at: 1)
            var ids: [ObjectID] = []
            while try m.step() { ids.append(ObjectID(entity: r.destination, number: m.int64(0))) }
            return ids
        } catch { throw Self.storeError(error, "reading \(id).\(relationship)") }
    }

    /// The row's version, or nil when the store has no such object.
    public func version(of id: ObjectID) throws(EngineError) -> Int64? { try readObjectVersion(id) }

    func readVersion(_ id: ObjectID) throws(EngineError) -> Int64? {
        guard let t = sqlTables[id.entity] else { return nil }
        do {
            let s = try connection.prepare(t.selectVersion)
            defer { s.reset() }
            try s.bind(.integer(id.number), at: 1)
            return try s.step() ? s.int64(0) : nil
        } catch { throw Self.storeError(error, "reading \(id)") }
    }

    // MARK: Writing

    /// Writes the batch in one transaction: all of it or, on any failure, nothing. Inside a
    /// transaction begun with `beginWrite`, it becomes part of that one (committed by
    /// `commitWrite`; on failure here it is rolled back).
    public func write(_ batch: StoreBatch) throws(EngineError) {
        guard !batch.isEmpty else { return }
        let db = try connection
        let own = !isWriting
        if own { try beginWrite(author: batch.author) }
        do {
            do {
                // One statement per entity for the whole batch (no cache lookup per row).
                var current: (entity: String, table: SQLiteTable, statement: Statement)? = nil
                // The history: this transaction's rows, a run of inserted numbers as one row.
                let txn = SQLValue.integer(writeToken ?? 0)
                var run: (entity: String, first: Int64, last: Int64)? = nil
                func flushRun() throws {
                    guard let r = run else { return }
                    try db.prepare(HistorySchema.recordInserts)
                        .run([txn, .text(r.entity), .integer(r.first), r.last == r.first ? .null : .integer(r.last)])
                    run = nil
                }
                let rebuilt = try dropIndexesForBulkInserts(db, batch.inserts)
                // Up to 32 rows of one entity per statement: AUTOINCREMENT's bookkeeping is per
                // statement, not per row.
                var k = 0
                let inserts = batch.inserts
                var rows = RowProgress(total: inserts.count)
                let progress = rows.progress
                while k < inserts.count {
                    rows.at(k)
                    let id = inserts[k].0
                    if current?.entity != id.entity {
                        let t = try table(id)
                        current = (id.entity, t, try db.prepare(t.insert))
                    }
                    let t = current!.table
                    var end = k + 1
                    while end < inserts.count && end - k < 32 && inserts[end].0.entity == id.entity { end += 1 }
                    let s = end - k == 32 ? try db.prepare(t.insert32) : current!.statement
                    if end - k != 32 { end = k + 1 }
                    var i: Int32 = 1
                    for (id, values) in inserts[k..<end] {
                        if let r = run, r.entity == id.entity, r.last + 1 == id.number {
                            run!.last = id.number
                        } else {
                            try flushRun()
                            run = (id.entity, id.number, id.number)
                        }
                        try s.bind(.integer(id.number), at: i)
                        i += 1
                        for a in t.attributes {
                            try s.bind(ValueEncoding.sql(values[a.name] ?? .null), at: i)
                            i += 1
                        }
                        for r in t.toOne {
                            try s.bind(ValueEncoding.sql(values[r.name] ?? .null), at: i)
                            i += 1
                        }
                    }
                    while try s.step() {}
                    s.rewind() // every parameter is bound again for the next rows
                    if !t.manyToMany.isEmpty {
                        for (id, values) in inserts[k..<end] { try writeJoins(db, t, id, values, replacing: false) }
                    }
                    k = end
                }
                try flushRun()
                if !rebuilt.isEmpty {
                    progress?.phase("rebuilding indexes")
                    try rebuildIndexes(db, rebuilt)
                }
                // The partial writer of the entity last seen (`StoreBatch.updatedKeys`).
                var partial: (entity: String, writer: PartialRowWriter?)? = nil
                for (n, (id, values)) in batch.updates.enumerated() {
                    if let progress, n & 4095 == 0 { progress.step("updating rows", done: n, of: batch.updates.count) }
                    let t = try table(id)
                    if let keys = batch.updatedKeys, partial?.entity != id.entity {
                        partial = (
                            id.entity, try PartialRowWriter(db, t, keys: keys, prior: batch.priorHistory, txn: txn)
                        )
                    }
                    let only = partial?.entity == id.entity ? partial?.writer : nil
                    if let only {
                        try only.write(id, values, row: n)
                    } else {
                        var bound = t.columnValues(values)
                        try db.prepare(t.recordUpdate).run([txn, .integer(id.number)] + bound)
                        bound.append(.integer(id.number))
                        try db.prepare(t.update).run(bound)
                    }
                    guard db.changes == 1 else {
                        throw EngineError(.storeError, "\(id) is not in the store", [("id", .string(id.description))])
                    }
                    if only?.joins ?? true { try writeJoins(db, t, id, values, replacing: true) }
                }
                for (n, id) in batch.deletes.enumerated() {
                    if let progress, n & 4095 == 0 { progress.step("deleting rows", done: n, of: batch.deletes.count) }
                    let t = try table(id)
                    try db.prepare(t.recordDelete).run([txn, .integer(id.number)])
                    for j in t.manyToMany {
                        try db.prepare(HistorySchema.recordUnlinks(table: j.table, selfColumn: j.selfColumn)).run([
                            txn, .integer(id.number),
                        ])
                        try db.prepare(
                            "DELETE FROM \(SchemaNaming.quoted(j.table)) WHERE \(SchemaNaming.quoted(j.selfColumn)) = ?"
                        )
                        .run([.integer(id.number)])
                    }
                    try db.prepare(t.delete).run([.integer(id.number)])
                }
            }
            if own { try commitWrite() }
        } catch let e as EngineError {
            rollbackWrite()
            throw e
        } catch {
            rollbackWrite()
            throw Self.storeError(error, "the save was not written")
        }
    }

    /// Entities that get at least as many new rows as they hold (and many): their indexes
    /// are dropped before the rows go in and built again after, in the same transaction. One
    /// sort of the whole table costs less than as many random index insertions; a reader
    /// never sees the store without them.
    private func dropIndexesForBulkInserts(_ db: Connection, _ inserts: [(ObjectID, Snapshot)]) throws -> [Entity] {
        guard inserts.count >= BulkIndexPolicy.minimumRows else { return [] }
        var counts: [String: Int] = [:]
        for (id, _) in inserts { counts[id.entity, default: 0] += 1 }
        var out: [Entity] = []
        for (name, n) in counts.sorted(by: { $0.key < $1.key }) {
            guard let t = tables[name], !Schema.indexes(t.entity).isEmpty else { continue }
            let rebuilds = try BulkIndexPolicy.rebuilds(rows: n) {
                let s = try db.prepare("SELECT count(*) FROM \(SchemaNaming.quoted(name))")
                defer { s.reset() }
                _ = try s.step()
                return Int(s.int64(0))
            }
            guard rebuilds else { continue }
            for sql in Schema.dropIndexes(t.entity) { try db.execute(sql) }
            out.append(t.entity)
        }
        return out
    }

    /// Builds the indexes `dropIndexesForBulkInserts` dropped. SQLite sorts an index's keys
    /// in runs as large as the page cache before merging them: with the 64 MiB cache, one
    /// run of a million keys sorts slower than small runs that stay in the CPU's cache, and
    /// with `threads` the runs sort on a second core (Benchmarks/README.md, "Measurements
    /// behind the code"). The connection gets its own cache and no sort threads back
    /// whatever happens.
    private func rebuildIndexes(_ db: Connection, _ entities: [Entity]) throws {
        try db.execute("PRAGMA cache_size=-\(Self.indexSortRunKiB); PRAGMA threads=2")
        defer { try? db.execute("PRAGMA threads=0; PRAGMA cache_size=-\(Self.pageCacheKiB)") }
        for e in entities { for sql in Schema.indexes(e) { try db.execute(sql) } }
    }

    /// The connection's page cache (KiB).
    public static let pageCacheKiB = 65536
    /// The page cache while indexes are built (KiB), and so the size of each sorted run.
    static let indexSortRunKiB = 4096

    private func table(_ id: ObjectID) throws(EngineError) -> SQLiteTable {
        guard let t = sqlTables[id.entity] else {
            throw EngineError(.unknownEntity, "no entity \(id.entity)", [("entity", .string(id.entity))])
        }
        return t
    }

    private func writeJoins(_ db: Connection, _ t: SQLiteTable, _ id: ObjectID, _ values: Snapshot, replacing: Bool)
        throws
    {
        for j in t.manyToMany {
            guard case .objects(let targets)? = values[j.relationship.name] else { continue }
            let me = SchemaNaming.quoted(j.selfColumn)
            let other = SchemaNaming.quoted(j.otherColumn)
            let table = SchemaNaming.quoted(j.table)
            let txn = SQLValue.integer(writeToken ?? 0)
            if replacing {
                try db.prepare(HistorySchema.recordUnlinks(table: j.table, selfColumn: j.selfColumn)).run([
                    txn, .integer(id.number),
                ])
                try db.prepare("DELETE FROM \(table) WHERE \(me) = ?").run([.integer(id.number)])
            }
            let add = try db.prepare("INSERT OR IGNORE INTO \(table) (\(me), \(other)) VALUES (?, ?)")
            for target in targets {
                try add.run([.integer(id.number), .integer(target.number)])
                guard db.changes == 1 else { continue }
                let (a, b) = j.selfColumn == "a" ? (id.number, target.number) : (target.number, id.number)
                try db.prepare(HistorySchema.recordLink).run([txn, .text(j.table), .integer(a), .integer(b)])
            }
        }
    }

    // MARK: Opening

    private static func prepareSchema(_ db: Connection, model: ObjectModel, path: String) throws(EngineError) -> (
        Bool, Int64
    ) {
        let meta = SchemaNaming.quoted(SchemaNaming.metadataTable)
        do {
            let hasMeta =
                try scalar(
                    db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                    [.text(SchemaNaming.metadataTable)]) ?? 0
            if hasMeta == 0 {
                let tables = try scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
                guard tables == 0 else {
                    throw EngineError(
                        .storeError, "\(path) is a SQLite file but not a fetchd store", [("path", .string(path))])
                }
                // Checked again under the write lock: another process may have created it meanwhile.
                let created = try db.transaction { () throws -> Bool in
                    let raced =
                        try scalar(
                            db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                            [.text(SchemaNaming.metadataTable)]) ?? 0
                    guard raced == 0 else { return false }
                    try db.execute("CREATE TABLE \(meta) (key TEXT PRIMARY KEY, value)")
                    for sql in Schema.create(model) { try db.execute(sql) }
                    try db.prepare("INSERT INTO \(meta) (key, value) VALUES ('model', ?), ('modelVersion', 1)")
                        .run([.text(ModelArchive.encode(model))])
                    return true
                }
                if created { return (false, 1) }
            }
            let s = try db.prepare("SELECT value FROM \(meta) WHERE key = 'model'")
            defer { s.reset() }
            guard try s.step(), let stored = ModelArchive.decode(s.text(0)) else {
                throw EngineError(.storeError, "\(path) has no readable model", [("path", .string(path))])
            }
            s.reset()
            let version = try scalar(db, "SELECT value FROM \(meta) WHERE key = 'modelVersion'") ?? 1
            if stored == model { return (false, version) }
            var columns: [String: Set<String>] = [:]
            for e in stored.entities {
                let info = try db.prepareUncached("SELECT name FROM pragma_table_info(?)")
                try info.bind(.text(e.name), at: 1)
                var names: Set<String> = []
                while try info.step() { names.insert(info.text(0).lowercased()) }
                columns[e.name] = names
            }
            let plan = try MigrationPlan(from: stored, to: model, existingColumns: columns)
            try db.transaction {
                // The history triggers name columns a step may drop; they are made anew after.
                try HistorySchema.dropTriggers(db)
                for (n, step) in plan.steps.enumerated() {
                    WorkProgress.current?.phase("migrating: step \(n + 1) of \(plan.steps.count)")
                    switch step {
                    case .sql(let sql): try db.execute(sql)
                    case .fill(let entity, let column, let value):
                        try db.prepareUncached(
                            "UPDATE \(SchemaNaming.quoted(entity)) SET \(SchemaNaming.quoted(column)) = ? WHERE \(SchemaNaming.quoted(column)) IS NULL"
                        )
                        .run([ValueEncoding.sql(value)])
                    }
                }
                try db.prepare("UPDATE \(meta) SET value = ? WHERE key = 'model'").run([
                    .text(ModelArchive.encode(model))
                ])
                try db.prepare("INSERT OR REPLACE INTO \(meta) (key, value) VALUES ('modelVersion', ?)").run([
                    .integer(version + 1)
                ])
            }
            return (true, version + 1)
        } catch let e as EngineError {
            throw e
        } catch {
            throw storeError(error, "cannot prepare the schema of \(path)")
        }
    }

    private static func scalar(_ db: Connection, _ sql: String, _ bindings: [SQLValue] = []) throws(EngineError)
        -> Int64?
    {
        do {
            let s = try db.prepare(sql)
            defer { s.reset() }
            try s.bind(bindings)
            guard try s.step(), !s.isNull(0) else { return nil }
            return s.int64(0)
        } catch { throw storeError(error, "query failed") }
    }

    static func storeError(_ error: any Error, _ context: String) -> EngineError {
        if let e = error as? EngineError { return e }
        if let e = error as? SQLiteError {
            return EngineError(
                .storeError, "\(context): \(e.message)",
                [("code", .int(Int64(e.code))), ("message", .string(e.message))])
        }
        return EngineError(.storeError, "\(context): \(error)")
    }
}
