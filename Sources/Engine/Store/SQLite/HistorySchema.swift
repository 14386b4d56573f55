import Model
import SQLite

/// The SQLite DDL and triggers of the change history (the layout: Core/HistoryNaming.swift;
/// protocol.md §5), one row per changed row inside the writer's own transaction, so a
/// committed write is always there and a rolled-back one never is. A plain client's rows come
/// from pure-SQL triggers on each entity and join table (they call no function a plain client
/// lacks); fetchd's from `Store.write`, with triggers off on its connection.
enum HistorySchema {
    static let history = HistoryNaming.history
    static let transactions = HistoryNaming.transactions
    static let triggerPrefix = HistoryNaming.triggerPrefix
    static let cursors = HistoryNaming.cursors

    static let tables = [
        "CREATE TABLE IF NOT EXISTS \"\(transactions)\" (token INTEGER PRIMARY KEY, author TEXT, origin TEXT, time REAL)",
        // No AUTOINCREMENT: rows are appended at max(seq)+1 under the write lock, which is commit order.
        "CREATE TABLE IF NOT EXISTS \"\(cursors)\" (consumer TEXT PRIMARY KEY, token INTEGER NOT NULL, heartbeat REAL NOT NULL)",
        "CREATE TABLE IF NOT EXISTS \"\(history)\" (seq INTEGER PRIMARY KEY, txn INTEGER, time REAL, entity TEXT NOT NULL, pk INTEGER NOT NULL, op TEXT NOT NULL, keys TEXT, version INTEGER, old TEXT, other INTEGER)",
    ]

    static func literal(_ s: String) -> String { HistoryNaming.literal(s) }

    /// The triggers serve plain clients only: fetchd turns triggers off on its own
    /// connection and records its rows itself (`Store.write`), so its transactions carry
    /// their token and cost one row each, not a trigger program per row.
    private static let time = "(julianday('now') - 2440587.5) * 86400.0"

    /// One history row per tuple, with the time (a plain client's).
    private static func insertRows(
        _ rows: [(entity: String, pk: String, op: String, keys: String, version: String, old: String, other: String)]
    ) -> String {
        let selects = rows.map {
            "SELECT NULL, \(time), \(literal($0.entity)), \($0.pk), \($0.op), \($0.keys), \($0.version), \($0.old), \($0.other)"
        }
        return "INSERT INTO \"\(history)\" (txn, time, entity, pk, op, keys, version, old, other) "
            + selects.joined(separator: " UNION ALL ")
    }

    static func columns(_ e: Entity) -> [(name: String, type: AttributeType?)] { HistoryNaming.columns(e) }

    /// A row's values as a JSON array in `columns` order, exactly: doubles as 17-digit text,
    /// binary as hex, so they come back bit for bit (`History.decodeOld`).
    static func oldValues(_ e: Entity, _ row: String) -> String {
        let items = columns(e).map { c -> String in
            let v = "\(row)\(SchemaNaming.quoted(c.name))"
            switch c.type {
            case .double?, .date?: return "iif(\(v) IS NULL, NULL, printf('%!.17g', \(v)))"
            case .binary?: return "iif(\(v) IS NULL, NULL, hex(\(v)))"
            default: return v
            }
        }
        return "json_array(\(items.joined(separator: ", ")))"
    }

    /// fetchd's own rows (triggers are off on its connection). Binds: ?1 the transaction
    /// token, ?2 the primary key, then (updates) the new column values in `columns` order.
    static func recordUpdate(_ e: Entity) -> String {
        let q = SchemaNaming.quoted
        let keys = changedKeys(columns(e).map(\.name)) { "\(q($1)) IS NOT ?\($0 + 3)" }
        return "INSERT INTO \"\(history)\" (txn, entity, pk, op, keys, version, old) SELECT ?1, \(literal(e.name)), "
            + "\(q(SchemaNaming.primaryKey)), 'U', \(keys), \(q(SchemaNaming.version)), \(oldValues(e, "")) "
            + "FROM \(q(e.name)) WHERE \(q(SchemaNaming.primaryKey)) = ?2"
    }

    /// The history's `keys` of an update: `names` (in order, comma-separated) where
    /// `differs(i, name)`, the SQL of the `i`th name's old and new values differing, holds;
    /// `''` for no names.
    static func changedKeys(_ names: [String], differs: (Int, String) -> String) -> String {
        guard !names.isEmpty else { return "''" }
        let terms = names.enumerated().map {
            "iif(\(differs($0.offset, $0.element)), \(literal($0.element + ",")), '')"
        }
        return "rtrim(" + terms.joined(separator: " || ") + ", ',')"
    }

    static func recordDelete(_ e: Entity) -> String {
        let q = SchemaNaming.quoted
        return "INSERT INTO \"\(history)\" (txn, entity, pk, op, version, old) SELECT ?1, \(literal(e.name)), "
            + "\(q(SchemaNaming.primaryKey)), 'D', \(q(SchemaNaming.version)), \(oldValues(e, "")) "
            + "FROM \(q(e.name)) WHERE \(q(SchemaNaming.primaryKey)) = ?2"
    }

    /// ?1 token, ?2 entity, ?3 first number, ?4 last number (NULL for one).
    static let recordInserts = "INSERT INTO \"\(history)\" (txn, entity, pk, op, other) VALUES (?1, ?2, ?3, 'I', ?4)"

    /// The links of one object about to be removed: ?1 token, ?2 the object's number.
    static func recordUnlinks(table: String, selfColumn: String) -> String {
        "INSERT INTO \"\(history)\" (txn, entity, pk, op, other) SELECT ?1, \(literal(table)), \"a\", 'D', \"b\" "
            + "FROM \(SchemaNaming.quoted(table)) WHERE \(SchemaNaming.quoted(selfColumn)) = ?2"
    }

    /// One link added: ?1 token, ?2 join table, ?3 column a, ?4 column b.
    static let recordLink = "INSERT INTO \"\(history)\" (txn, entity, pk, op, other) VALUES (?1, ?2, ?3, 'I', ?4)"

    /// The triggers of `model`, by name. Updates and deletes record the row's old values and
    /// version, so a reader can tell what its view showed before. An entity's update trigger
    /// also bumps `_version` when the writer left it unchanged (a plain client), so
    /// optimistic locking sees every change; fetchd's own updates bump it themselves and skip
    /// that statement. Under `recursive_triggers` the bump fires the trigger once more,
    /// adding a row without keys.
    static func triggers(_ model: ObjectModel) -> [(name: String, sql: String)] {
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        let version = q(SchemaNaming.version)
        var out: [(String, String)] = []
        for e in model.entities {
            let table = q(e.name)
            let entity = e.name
            let names = columns(e).map(\.name)
            let keys =
                names.isEmpty
                ? "''"
                : "rtrim("
                    + names.map {
                        "iif(OLD.\(q($0)) IS NOT NEW.\(q($0)), \(literal($0 + ",")), '')"
                    }.joined(separator: " || ") + ", ',')"
            let name = { (op: String) in q(triggerPrefix + e.name + "_" + op) }
            let deleted = (entity, "OLD.\(pk)", "'D'", "NULL", "OLD.\(version)", oldValues(e, "OLD."), "NULL")
            out.append(
                (
                    triggerPrefix + e.name + "_insert",
                    "CREATE TRIGGER \(name("insert")) AFTER INSERT ON \(table) BEGIN "
                        + insertRows([(entity, "NEW.\(pk)", "'I'", "NULL", "NULL", "NULL", "NULL")]) + "; END"
                ))
            out.append(
                (
                    triggerPrefix + e.name + "_update",
                    "CREATE TRIGGER \(name("update")) AFTER UPDATE ON \(table) BEGIN "
                        // A changed primary key is the old object deleted and a new one inserted.
                        + insertRows([deleted]) + " WHERE OLD.\(pk) IS NOT NEW.\(pk); "
                        + insertRows([
                            (
                                entity, "NEW.\(pk)", "iif(OLD.\(pk) IS NEW.\(pk), 'U', 'I')", keys,
                                "iif(OLD.\(pk) IS NEW.\(pk), OLD.\(version), NULL)",
                                "iif(OLD.\(pk) IS NEW.\(pk), \(oldValues(e, "OLD.")), NULL)", "NULL"
                            )
                        ]) + "; "
                        + "UPDATE \(table) SET \(version) = OLD.\(version) + 1 "
                        + "WHERE NEW.\(version) IS OLD.\(version) AND \(pk) = NEW.\(pk); END"
                ))
            out.append(
                (
                    triggerPrefix + e.name + "_delete",
                    "CREATE TRIGGER \(name("delete")) AFTER DELETE ON \(table) BEGIN " + insertRows([deleted]) + "; END"
                ))
            // INSERT OR REPLACE deletes the old row without the delete trigger unless
            // recursive_triggers is on: record it here (a second row when it is on), with its
            // version, which the new row then continues from, so a context that read the old
            // row sees a conflict.
            let replaced =
                "SELECT version FROM \"\(history)\" WHERE seq >= (SELECT max(seq) - 1 FROM \"\(history)\") "
                + "AND op = 'D' AND entity = \(literal(e.name)) AND pk = NEW.\(pk) ORDER BY seq DESC LIMIT 1"
            out.append(
                (
                    triggerPrefix + e.name + "_replace",
                    "CREATE TRIGGER \(name("replace")) BEFORE INSERT ON \(table) "
                        + "WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(pk) = NEW.\(pk)) BEGIN "
                        + "INSERT INTO \"\(history)\" (txn, time, entity, pk, op, version, old) SELECT NULL, \(time), \(literal(e.name)), "
                        + "\(pk), 'D', \(version), \(oldValues(e, "\(table).")) FROM \(table) WHERE \(pk) = NEW.\(pk); END"
                ))
            out.append(
                (
                    triggerPrefix + e.name + "_replaced",
                    "CREATE TRIGGER \(name("replaced")) AFTER INSERT ON \(table) WHEN (\(replaced)) >= NEW.\(version) BEGIN "
                        + "UPDATE \(table) SET \(version) = (\(replaced)) + 1 WHERE \(pk) = NEW.\(pk); END"
                ))
        }
        // A join table's row: `pk` is column a, `other` column b.
        for e in model.entities {
            for r in e.relationships where SchemaNaming.isManyToMany(r, in: model) {
                let j = SchemaNaming.joinTable(entity: e.name, relationship: r)
                guard j.selfColumn == "a" else { continue }
                for (op, row) in [("insert", "NEW"), ("delete", "OLD")] {
                    out.append(
                        (
                            triggerPrefix + j.table + "_" + op,
                            "CREATE TRIGGER \(q(triggerPrefix + j.table + "_" + op)) AFTER \(op.uppercased()) ON \(q(j.table)) BEGIN "
                                + insertRows([
                                    (
                                        j.table, "\(row).\"a\"", op == "insert" ? "'I'" : "'D'", "NULL", "NULL", "NULL",
                                        "\(row).\"b\""
                                    )
                                ]) + "; END"
                        ))
                }
            }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    static func existingTriggers(_ db: Connection) throws -> [(String, String)] {
        let s = try db.prepareUncached(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_fetchd\\_trg\\_%' ESCAPE '\\' ORDER BY name"
        )
        var out: [(String, String)] = []
        while try s.step() { out.append((s.text(0), s.text(1))) }
        return out
    }

    static func dropTriggers(_ db: Connection) throws {
        for (name, _) in try existingTriggers(db) {
            try db.execute("DROP TRIGGER IF EXISTS \(SchemaNaming.quoted(name))")
        }
    }

    /// Creates the history tables and (re)creates the triggers when they differ from the
    /// model's: the light migration of a store made before history existed, or whose model
    /// changed. Runs inside the caller's write transaction.
    /// Whether the history's tables exist and its triggers are the model's: then opening the
    /// store writes nothing, and needs no write lock (another process may hold it).
    static func isInstalled(_ db: Connection, model: ObjectModel) throws -> Bool {
        let names = [transactions, cursors, history]
        let s = try db.prepareUncached(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)")
        for (i, name) in names.enumerated() { try s.bind(.text(name), at: Int32(i + 1)) }
        guard try s.step(), s.int64(0) == Int64(names.count) else { return false }
        return try existingTriggers(db).elementsEqual(triggers(model), by: { $0.0 == $1.0 && $0.1 == $1.1 })
    }

    static func install(_ db: Connection, model: ObjectModel) throws {
        for sql in tables { try db.execute(sql) }
        let wanted = triggers(model)
        let have = try existingTriggers(db)
        if have.elementsEqual(wanted, by: { $0.0 == $1.0 && $0.1 == $1.1 }) { return }
        try dropTriggers(db)
        for (_, sql) in wanted { try db.execute(sql) }
    }
}
