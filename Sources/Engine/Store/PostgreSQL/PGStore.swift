import Model
import Postgres
import Predicates

/// The store in a schema of a PostgreSQL server, shared by any number of fetchd processes
/// and plain SQL clients: the same semantics as `SQLiteStore` (protocol.md §5). Writers are
/// serialized by a transaction-level advisory lock, the history is recorded by triggers
/// (PGHistorySchema.swift), ids come from one sequence per entity, and commits are announced
/// with NOTIFY on `PGChangeListener.channel(schema:)`.
///
/// One connection, used from one thread. When it breaks, the failing request answers
/// `storeUnavailable` with nothing written, and a later request reconnects (with backoff).
public final class PGStore: Store, HistoryBackedStore {
    /// The server's URL without its password.
    public let path: String
    public let model: ObjectModel
    public let migrated: Bool
    /// Goes up by one with every model change of the schema.
    public let modelVersion: Int64
    public let schema: String
    public let origin: String
    /// The NOTIFY channel of the schema.
    public let channel: String
    /// The libpq URL (without `schema=`).
    let conninfo: String
    let log: (String) -> Void

    var connection: PGConnection?
    let tables: [String: EntityTable]
    let sql: [String: PGEntitySQL]
    /// Numbers taken from the entity sequences and not yet handed out (PGStore+Write.swift).
    var idQueues: [String: PGIDQueue] = [:]
    /// The open write transaction's token, and the newest history token when it began.
    var writeToken: Int64?
    var writeBase: Int64 = 0
    public var busyTimeout = 5000
    public var retention = HistoryRetention()
    var upkeep = HistoryUpkeep()
    /// The newest history token when the history was last read (hasExternalChanges).
    var seenToken: Int64 = 0
    public var mergeCursor: Int64 = 0
    public var overlay: [ObjectID: StoredObject?]? = nil
    public var justWritten: JustWritten? = nil
    /// Whether a REPEATABLE READ transaction is kept between merges (PGStore+ReadSnapshot.swift).
    public var readSnapshots = ReadSnapshots.off
    var snapshotHeld = false
    /// The newest history token in the held snapshot.
    var snapshotToken: Int64 = 0
    public var owesMerge = false
    /// The second session for writes of their own while a snapshot is held.
    var sideConnection: PGConnection?

    /// Opens the store in `schema` (default `fetchd`, or the URL's `schema=` parameter) of
    /// the server at `url` (`postgresql://…`), creating or lightly migrating it. Two
    /// processes may open a new schema at once: creation runs under an advisory lock.
    public static func open(
        url: String, model: ObjectModel, schema: String? = nil, log: @escaping (String) -> Void = { _ in }
    ) throws(EngineError) -> PGStore {
        try model.validate()
        let (conninfo, urlSchema) = PGURL.splitSchema(url)
        let schema = schema ?? urlSchema ?? "fetchd"
        let shown = PGURL.withoutPassword(conninfo)
        // The NOTIFY channel is `fetchd_` + schema, an identifier of at most 63 bytes.
        guard !schema.isEmpty, PGChangeListener.channel(schema: schema).utf8.count <= 63 else {
            throw EngineError(
                .storeError, "the schema name \(schema) is empty or longer than 56 bytes",
                [("path", .string(shown)), ("schema", .string(schema))])
        }
        let db: PGConnection
        do { db = try PGConnection(conninfo) } catch {
            throw EngineError(
                .storeUnavailable, "cannot connect to \(shown): \(error.message)",
                [("path", .string(shown)), ("message", .string(error.message))])
        }
        let (migrated, version) = try PGSchemaSetup.prepare(db, model: model, schema: schema, path: shown)
        let store = PGStore(
            db, conninfo: conninfo, path: shown, model: model, schema: schema, migrated: migrated,
            modelVersion: version, log: log)
        store.seenToken = (try? store.currentToken) ?? 0
        store.mergeCursor = store.seenToken
        store.recordCursorIfDue()
        return store
    }

    private init(
        _ db: PGConnection, conninfo: String, path: String, model: ObjectModel, schema: String, migrated: Bool,
        modelVersion: Int64, log: @escaping (String) -> Void
    ) {
        self.connection = db
        self.conninfo = conninfo
        self.path = path
        self.model = model
        self.schema = schema
        self.migrated = migrated
        self.modelVersion = modelVersion
        self.log = log
        self.channel = PGChangeListener.channel(schema: schema)
        self.origin = StoreClock.newOrigin()
        var tables: [String: EntityTable] = [:]
        var sql: [String: PGEntitySQL] = [:]
        for e in model.entities {
            tables[e.name] = EntityTable(e, in: model)
            sql[e.name] = PGEntitySQL(e, in: model)
        }
        self.tables = tables
        self.sql = sql
    }

    public var isOpen: Bool { connection != nil }

    /// Rolls back an open write and leaves: the cursor row goes, the connection closes.
    /// Numbers taken from the sequences and never handed out stay unused (a sequence cannot
    /// give them back safely while other writers take numbers).
    public func close() {
        readSnapshots = .off
        rollbackWrite()
        releaseSnapshot()
        sideConnection?.close()
        sideConnection = nil
        dropCursor()
        connection?.close()
        connection = nil
        idQueues.removeAll()
    }

    // MARK: The connection

    /// The connection, re-established first when it broke (each attempt after a backoff;
    /// in between, `storeUnavailable` at once).
    func db() throws(EngineError) -> PGConnection {
        guard let connection else {
            throw EngineError(.storeClosed, "the store is closed", [("path", .string(path))])
        }
        do {
            if try connection.reconnectIfBroken() {
                // A new session: whatever transaction the old one held is gone.
                snapshotHeld = false
                try PGSchemaSetup.configure(connection, schema: schema)
                log("reconnected to \(path)")
            }
        } catch {
            throw EngineError(
                .storeUnavailable, "the PostgreSQL server cannot be reached: \(error)",
                [("path", .string(path)), ("message", .string("\(error)"))])
        }
        return connection
    }

    /// Runs `body` on `c` (the store's session or the second one); PostgreSQL errors become
    /// engine errors.
    func reading<T>(_ c: PGConnection, _ what: String, _ body: (PGConnection) throws -> T) throws(EngineError) -> T {
        do { return try body(c) } catch { throw failure(error, what, session: c) }
    }

    /// Runs `body` on the connection; PostgreSQL errors become engine errors.
    func run<T>(_ what: String, _ body: (PGConnection) throws -> T) throws(EngineError) -> T {
        let c = try db()
        do { return try body(c) } catch { throw failure(error, what) }
    }

    /// An engine error for `error`: `storeUnavailable` when the connection broke (an open
    /// write is gone with it), `storeBusy` when a lock stayed taken, `storeError` otherwise.
    /// `session`: the connection that failed, when it is the second one (PGStore+ReadSnapshot.swift),
    /// whose failure leaves the store's own session, its write and its snapshot, as they are.
    func failure(_ error: any Error, _ what: String, session: PGConnection? = nil) -> EngineError {
        if let e = error as? EngineError { return e }
        guard let e = error as? PGError else { return EngineError(.storeError, "\(what): \(error)") }
        if let session, session !== connection {
            if e.connectionBroken || !session.isConnected {
                session.close()
                sideConnection = nil
                return EngineError(
                    .storeUnavailable, "\(what): the connection to the PostgreSQL server was lost; nothing was written",
                    [("path", .string(path)), ("message", .string(e.message))])
            }
        } else if e.connectionBroken || !(connection?.isConnected ?? false) {
            writeToken = nil
            snapshotHeld = false
            log("lost the connection to \(path) (\(e)); reconnecting on the next request")
            // Starts the backoff: the next request after it reconnects.
            _ = try? connection?.reconnectIfBroken()
            return EngineError(
                .storeUnavailable, "\(what): the connection to the PostgreSQL server was lost; nothing was written",
                [("path", .string(path)), ("message", .string(e.message))])
        }
        if session == nil || session === connection { recoverSnapshot(after: e) }
        if e.sqlState == "55P03" || e.sqlState == "40P01" {
            return EngineError(
                .storeBusy, "the store is locked by another writer; nothing was written",
                [("path", .string(path)), ("timeoutMs", .int(Int64(busyTimeout)))])
        }
        var details: [(String, EngineError.Detail)] = [("message", .string(e.message))]
        if let state = e.sqlState { details.append(("sqlState", .string(state))) }
        return EngineError(.storeError, "\(what): \(e.message)", details)
    }

    // MARK: Reading

    public func read(_ id: ObjectID) throws(EngineError) -> StoredObject? { try readObject(id) }

    func readRow(_ id: ObjectID) throws(EngineError) -> StoredObject? {
        guard let t = tables[id.entity], let s = sql[id.entity] else { return nil }
        return try run("reading \(id)") { c in
            let r = try c.execPrepared(s.selectByID, [.int(id.number)])
            guard r.count == 1 else { return nil }
            return Self.storedObject(r.rows[0], from: 0, t, s)
        }
    }

    /// Every saved object of `entity` with its id number, ascending, in one round trip: for
    /// what is evaluated in memory (a filter or ordering PostgreSQL cannot run exactly).
    func readAll(_ entity: String) throws(EngineError) -> [(Int64, StoredObject)] {
        guard let t = tables[entity], let s = sql[entity] else { return [] }
        return try run("reading \(entity)") { c in
            try c.execPrepared(s.selectAll).rows.map { row in (Int64(row[0]!)!, Self.storedObject(row, from: 1, t, s)) }
        }
    }

    /// A row of `selectByID`'s columns starting at `first`: the version, the attribute and
    /// to-one columns, then the to-many sides as arrays (one round trip per object).
    static func storedObject(_ row: [String?], from first: Int, _ t: EntityTable, _ s: PGEntitySQL) -> StoredObject {
        var values = rowValues(row, t, from: first + 1)
        var column = first + 1 + s.columns.count
        for (rel, _) in s.toMany {
            values[rel.name] = .objects(numbers(row[column]).map { ObjectID(entity: rel.destination, number: $0) })
            column += 1
        }
        return StoredObject(values: values, version: row[first].flatMap { Int64($0) } ?? 1)
    }

    /// A bigint[] in text form (`{1,2,3}`).
    static func numbers(_ text: String?) -> [Int64] {
        guard let text, text.count > 2 else { return [] }
        return text.dropFirst().dropLast().split(separator: ",").compactMap { Int64($0) }
    }

    /// The attribute and to-one columns of a row (in `EntityTable` order), from `column` on.
    static func rowValues(_ row: [String?], _ t: EntityTable, from column: Int) -> Snapshot {
        var values: Snapshot = Dictionary(minimumCapacity: t.entity.attributes.count + t.entity.relationships.count)
        var column = column
        for a in t.attributes {
            values[a.name] = PGValueEncoding.value(row[column], as: .attribute(a.type))
            column += 1
        }
        for r in t.toOne {
            values[r.name] = PGValueEncoding.value(row[column], as: .object(r.destination))
            column += 1
        }
        return values
    }

    public func relatedIDs(of id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID] {
        try readRelatedIDs(id, relationship)
    }

    func readRelated(_ id: ObjectID, _ relationship: String) throws(EngineError) -> [ObjectID] {
        guard let s = sql[id.entity], let (r, query) = s.toMany.first(where: { $0.relationship.name == relationship })
        else { return [] }
        return try run("reading \(id).\(relationship)") { c in
            try c.execPrepared(query, [.int(id.number)]).rows.map {
                ObjectID(entity: r.destination, number: Int64($0[0]!)!)
            }
        }
    }

    public func version(of id: ObjectID) throws(EngineError) -> Int64? { try readObjectVersion(id) }

    func readVersion(_ id: ObjectID) throws(EngineError) -> Int64? {
        guard let s = sql[id.entity] else { return nil }
        return try run("reading \(id)") { c in
            try c.execPrepared(s.selectVersion, [.int(id.number)]).int64OrNil(0, 0)
        }
    }
}

extension PGResult {
    /// The integer at `row`, `column`; nil for no such row or NULL.
    func int64OrNil(_ row: Int, _ column: Int) -> Int64? { row < count ? int64(row, column) : nil }
}

/// The SQL text of one entity, built once at open so statements are prepared once per session.
struct PGEntitySQL {
    let table: String
    let selectByID: String
    /// `selectByID`'s columns for every row, after the id number, by id number.
    let selectAll: String
    let selectVersion: String
    let toMany: [(relationship: Relationship, sql: String)]
    /// The attribute and to-one columns, quoted, in `EntityTable` order.
    let columns: [String]
    let update: String
    let delete: String
    /// Each join table of the entity: replaces an object's links with the array `$2`.
    let unlinkOthers: [(relationship: String, sql: String)]
    let link: [(relationship: String, sql: String)]
    let unlinkAll: [String]

    init(_ e: Entity, in model: ObjectModel) {
        let layout = EntityTable(e, in: model)
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        let version = q(SchemaNaming.version)
        table = q(e.name)
        columns = e.attributes.map { q($0.name) } + e.relationships.filter(SchemaNaming.hasColumn).map { q($0.name) }
        var toMany: [(Relationship, String)] = []
        var unlinkOthers: [(String, String)] = []
        var link: [(String, String)] = []
        var unlinkAll: [String] = []
        for r in e.relationships where r.toMany {
            if SchemaNaming.isManyToMany(r, in: model) {
                let j = SchemaNaming.joinTable(entity: e.name, relationship: r)
                let (t, me, other) = (PGSchema.qn(j.table), q(j.selfColumn), q(j.otherColumn))
                toMany.append((r, layout.toManyQuery(r, parameter: "$1", table: PGSchema.qn)))
                unlinkOthers.append(
                    (r.name, "DELETE FROM \(t) WHERE \(me) = $1 AND NOT (\(other) = ANY ($2::bigint[]))"))
                link.append(
                    (
                        r.name,
                        "INSERT INTO \(t) (\(me), \(other)) SELECT $1, x FROM unnest($2::bigint[]) AS x ORDER BY x ON CONFLICT DO NOTHING"
                    ))
                unlinkAll.append("DELETE FROM \(t) WHERE \(me) = $1")
            } else {
                toMany.append((r, layout.toManyQuery(r, parameter: "$1")))
            }
        }
        self.toMany = toMany.map { (relationship: $0.0, sql: $0.1) }
        self.unlinkOthers = unlinkOthers.map { (relationship: $0.0, sql: $0.1) }
        self.link = link.map { (relationship: $0.0, sql: $0.1) }
        self.unlinkAll = unlinkAll
        let arrays = self.toMany.map { "ARRAY(\($0.sql.replacing("$1", with: "x.\(pk)")))" }
        let selected = ([version] + columns.map { "x.\($0)" } + arrays).joined(separator: ", ")
        selectByID = "SELECT \(selected) FROM \(table) AS x WHERE x.\(pk) = $1"
        selectAll = "SELECT x.\(pk), \(selected) FROM \(table) AS x ORDER BY x.\(pk)"
        selectVersion = "SELECT \(version) FROM \(table) WHERE \(pk) = $1"
        let sets =
            columns.enumerated().map { "\($0.element) = $\($0.offset + 2)" } + ["\(version) = \(version) + 1"]
        update = "UPDATE \(table) SET \(sets.joined(separator: ", ")) WHERE \(pk) = $1"
        delete = "DELETE FROM \(table) WHERE \(pk) = $1"
    }

    /// An INSERT of `rows` rows (primary key, then `columns`).
    func insert(rows: Int) -> String {
        let width = columns.count + 1
        let tuples = (0..<rows).map { r in
            "(" + (1...width).map { "$\(r * width + $0)" }.joined(separator: ", ") + ")"
        }
        return
            "INSERT INTO \(table) (\(([SchemaNaming.quoted(SchemaNaming.primaryKey)] + columns).joined(separator: ", "))) VALUES "
            + tuples.joined(separator: ", ")
    }
}

/// The `postgresql://` URL as given and as shown.
enum PGURL {
    /// The URL without a `schema=` query parameter, and that parameter's value.
    static func splitSchema(_ url: String) -> (String, String?) {
        guard let mark = url.firstIndex(of: "?") else { return (url, nil) }
        var schema: String?
        var kept: [Substring] = []
        for item in url[url.index(after: mark)...].split(separator: "&") {
            if item.hasPrefix("schema=") {
                schema = String(item.dropFirst("schema=".count)).percentDecoded
            } else {
                kept.append(item)
            }
        }
        let base = String(url[..<mark])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
    }

    /// The URL with any password (in the authority or as `password=`) left out.
    static func withoutPassword(_ url: String) -> String {
        var out = url
        if let scheme = out.firstRange(of: "://") {
            let rest = out[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"),
                let colon = rest[..<at].firstIndex(of: ":")
            {
                out.removeSubrange(colon..<at)
            }
        }
        guard let mark = out.firstIndex(of: "?") else { return out }
        let kept = out[out.index(after: mark)...].split(separator: "&").filter { !$0.hasPrefix("password=") }
        return String(out[..<mark]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}

extension String {
    /// `%XX` escapes decoded (a URL's query value); nil when malformed.
    fileprivate var percentDecoded: String? {
        var bytes: [UInt8] = []
        var it = utf8.makeIterator()
        while let c = it.next() {
            guard c == UInt8(ascii: "%") else {
                bytes.append(c)
                continue
            }
            guard let h = it.next(), let l = it.next(),
                let v = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(v)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
