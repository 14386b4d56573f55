import Model

/// The change history in a PostgreSQL schema: the tables and columns of `HistorySchema`,
/// filled by triggers for every writer, fetchd included.
///
/// - Commit order is history order: every write statement on an entity or join table first
///   takes the schema's transaction-level advisory lock (a BEFORE ... FOR EACH STATEMENT
///   trigger; fetchd takes it in `beginWrite`), so writers are serialized and `seq` is
///   `max(seq) + 1` under the lock: dense, rising in commit order, never reused (the newest
///   row is never pruned).
/// - Rows are recorded by AFTER ... FOR EACH STATEMENT triggers with transition tables (one
///   call per statement, cheap for bulk work). A fetchd transaction sets `fetchd.txn` (SET
///   LOCAL) to its `_fetchd_transactions` token; a plain client's rows have `txn` NULL and a
///   `time`, and its statements announce themselves with `pg_notify` (fetchd announces at
///   its commit).
/// - Old values are a JSON array of text in `HistoryNaming.columns` order, each value in
///   PostgreSQL's output format with exact floats (`extra_float_digits = 3`) and hex bytea,
///   so they decode bit for bit.
/// - A row-level BEFORE UPDATE trigger bumps `_version` when the writer left it unchanged.
///
/// The functions carry their own `search_path` (the store's schema), so a plain client with
/// any search path records into this schema's history.
enum PGHistorySchema {
    static let q = SchemaNaming.quoted
    static let history = q(HistoryNaming.history)
    static let transactions = q(HistoryNaming.transactions)
    static let cursors = q(HistoryNaming.cursors)
    /// The advisory lock's first key ("fetc"); the second is `hashtext(schema)`.
    static let lockClass: Int32 = 0x6665_7463
    /// The session lock held while a schema is created or migrated.
    static let openLockClass: Int32 = 0x6665_7464
    static let functionPrefix = "_fetchd_fn_"

    static let tables = [
        "CREATE TABLE IF NOT EXISTS \(transactions) (token bigint PRIMARY KEY, author text, origin text, time double precision)",
        "CREATE TABLE IF NOT EXISTS \(cursors) (consumer text PRIMARY KEY, token bigint NOT NULL, heartbeat double precision NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS \(history) (seq bigint PRIMARY KEY, txn bigint, time double precision,
        entity text NOT NULL, pk bigint NOT NULL, op text NOT NULL, keys text, version bigint, old text, other bigint)
        """,
    ]

    /// Settings every history function runs with, whatever the writer's session says.
    private static let functionSettings =
        "SET search_path FROM CURRENT SET extra_float_digits = 3 SET bytea_output = 'hex'"

    /// The writer's token (NULL for a plain client) and a plain client's time.
    private static let declarations = """
        DECLARE
          base bigint;
          tx bigint := nullif(current_setting('fetchd.txn', true), '')::bigint;
          tm double precision := CASE WHEN nullif(current_setting('fetchd.txn', true), '') IS NULL
            THEN extract(epoch FROM clock_timestamp()) END;
        """

    /// A row's values (`alias`) as the JSON array of text `old` holds.
    static func oldValues(_ e: Entity, _ alias: String) -> String {
        let items = HistoryNaming.columns(e).map { c -> String in
            let v = "\(alias).\(q(c.name))"
            return c.type == .boolean ? "CASE WHEN \(v) THEN 't' WHEN NOT \(v) THEN 'f' END" : "\(v)::text"
        }
        return "array_to_json(ARRAY[\(items.joined(separator: ", "))]::text[])::text"
    }

    /// The plain client's announcement (fetchd's writes announce at their commit).
    private static func announce(_ channel: String) -> String {
        "IF tx IS NULL THEN PERFORM pg_notify(\(HistoryNaming.literal(channel)), (SELECT max(seq) FROM \(history))::text); END IF;"
    }

    private static func function(_ name: String, _ body: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(PGSchema.qn(functionPrefix + name))() RETURNS trigger LANGUAGE plpgsql
        \(functionSettings) AS $fetchd$
        \(declarations)
        BEGIN
        \(body)
        RETURN NULL;
        END $fetchd$
        """
    }

    /// The statements creating the functions and triggers of `model`, after `drop`.
    static func install(_ model: ObjectModel, schema: String, channel: String) -> [String] {
        let pk = q(SchemaNaming.primaryKey)
        let version = q(SchemaNaming.version)
        let base = "SELECT coalesce(max(seq), 0) INTO base FROM \(history);"
        var sql = [
            """
            CREATE OR REPLACE FUNCTION \(PGSchema.qn(functionPrefix + "lock"))() RETURNS trigger LANGUAGE plpgsql
            \(functionSettings) AS $fetchd$
            BEGIN PERFORM pg_advisory_xact_lock(\(lockClass), hashtext(\(HistoryNaming.literal(schema)))); RETURN NULL; END $fetchd$
            """,
            // TRUNCATE fires no row triggers: it would change rows the history never shows.
            """
            CREATE OR REPLACE FUNCTION \(PGSchema.qn(functionPrefix + "truncate"))() RETURNS trigger LANGUAGE plpgsql AS $fetchd$
            BEGIN RAISE EXCEPTION 'TRUNCATE of a fetchd table is not recorded in its history: use DELETE'; END $fetchd$
            """,
            """
            CREATE OR REPLACE FUNCTION \(PGSchema.qn(functionPrefix + "version"))() RETURNS trigger LANGUAGE plpgsql AS $fetchd$
            BEGIN
              IF NEW.\(version) IS NOT DISTINCT FROM OLD.\(version) THEN NEW.\(version) := coalesce(OLD.\(version), 0) + 1; END IF;
              RETURN NEW;
            END $fetchd$
            """,
        ]
        /// `t`: the table as quoted in SQL; `name`: what the trigger names are made of.
        func triggers(_ t: String, _ name: String) -> [String] {
            let trigger = { (suffix: String) in PGSchema.qn(HistoryNaming.triggerPrefix + name + "_" + suffix) }
            let fn = { (suffix: String) in PGSchema.qn(functionPrefix + name + "_" + suffix) }
            return [
                "CREATE TRIGGER \(trigger("lock")) BEFORE INSERT OR UPDATE OR DELETE ON \(t) FOR EACH STATEMENT EXECUTE FUNCTION \(PGSchema.qn(functionPrefix + "lock"))()",
                insertTrigger(t, name),
                "CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(t) REFERENCING OLD TABLE AS o FOR EACH STATEMENT EXECUTE FUNCTION \(fn("delete"))()",
                "CREATE TRIGGER \(trigger("truncate")) BEFORE TRUNCATE ON \(t) FOR EACH STATEMENT EXECUTE FUNCTION \(PGSchema.qn(functionPrefix + "truncate"))()",
            ]
        }
        for e in model.entities {
            let entity = HistoryNaming.literal(e.name)
            let seq = HistoryNaming.literal(q(PGSchema.sequence(e.name)))
            let names = HistoryNaming.columns(e).map(\.name)
            let keys =
                "concat_ws(',', "
                + (names.map {
                    "CASE WHEN o.\(q($0)) IS DISTINCT FROM n.\(q($0)) THEN \(HistoryNaming.literal($0)) END"
                } + ["NULL"]).joined(separator: ", ") + ")"
            // A run of consecutive numbers is one row (pk to other), as fetchd's SQLite store records it.
            sql.append(
                function(
                    e.name + "_insert",
                    """
                    \(base)
                    DECLARE lo bigint; hi bigint; k bigint;
                    BEGIN
                    SELECT min(n.\(pk)), max(n.\(pk)), count(*) INTO lo, hi, k FROM n;
                    IF k = 0 THEN RETURN NULL; END IF;
                    -- One run (a bulk load's numbers from the sequence): no sort of the rows.
                    IF hi - lo + 1 = k THEN
                      INSERT INTO \(history) (seq, txn, time, entity, pk, op, other)
                        VALUES (base + 1, tx, tm, \(entity), lo, 'I', CASE WHEN hi <> lo THEN hi END);
                    ELSE
                      INSERT INTO \(history) (seq, txn, time, entity, pk, op, other)
                        SELECT base + row_number() OVER (ORDER BY r.lo), tx, tm, \(entity), r.lo, 'I', CASE WHEN r.hi <> r.lo THEN r.hi END
                        FROM (SELECT min(p) AS lo, max(p) AS hi
                              FROM (SELECT n.\(pk) AS p, n.\(pk) - row_number() OVER (ORDER BY n.\(pk)) AS g FROM n) AS x GROUP BY g) AS r;
                    END IF;
                    -- Numbers a plain client chose itself: the sequence moves past them.
                    IF hi > (SELECT last_value FROM \(q(PGSchema.sequence(e.name)))) THEN PERFORM setval(\(seq), hi); END IF;
                    END;
                    \(announce(channel))
                    """))
            sql.append(
                function(
                    e.name + "_update",
                    """
                    \(base)
                    INSERT INTO \(history) (seq, txn, time, entity, pk, op, keys, version, old)
                      SELECT base + row_number() OVER (ORDER BY coalesce(n.\(pk), o.\(pk)), n.\(pk) IS NOT NULL), tx, tm, \(entity),
                        coalesce(n.\(pk), o.\(pk)),
                        CASE WHEN o.\(pk) IS NULL THEN 'I' WHEN n.\(pk) IS NULL THEN 'D' ELSE 'U' END,
                        CASE WHEN o.\(pk) IS NOT NULL AND n.\(pk) IS NOT NULL THEN \(keys) END,
                        o.\(version), CASE WHEN o.\(pk) IS NOT NULL THEN \(oldValues(e, "o")) END
                      FROM o FULL JOIN n ON o.\(pk) = n.\(pk);
                    \(announce(channel))
                    """))
            sql.append(
                function(
                    e.name + "_delete",
                    """
                    \(base)
                    INSERT INTO \(history) (seq, txn, time, entity, pk, op, version, old)
                      SELECT base + row_number() OVER (ORDER BY o.\(pk)), tx, tm, \(entity), o.\(pk), 'D', o.\(version), \(oldValues(e, "o"))
                      FROM o;
                    \(announce(channel))
                    """))
            sql += triggers(q(e.name), e.name)
            let t = q(e.name)
            sql.append(
                "CREATE TRIGGER \(PGSchema.qn(HistoryNaming.triggerPrefix + e.name + "_update")) AFTER UPDATE ON \(t) REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION \(PGSchema.qn(functionPrefix + e.name + "_update"))()"
            )
            sql.append(
                "CREATE TRIGGER \(PGSchema.qn(HistoryNaming.triggerPrefix + e.name + "_version")) BEFORE UPDATE ON \(t) FOR EACH ROW EXECUTE FUNCTION \(PGSchema.qn(functionPrefix + "version"))()"
            )
        }
        // A join table's row: `pk` is column a, `other` column b.
        for e in model.entities {
            for r in e.relationships where SchemaNaming.isManyToMany(r, in: model) {
                let j = SchemaNaming.joinTable(entity: e.name, relationship: r)
                guard j.selfColumn == "a" else { continue }
                let table = HistoryNaming.literal(j.table)
                for (op, alias) in [("insert", "n"), ("delete", "o")] {
                    sql.append(
                        function(
                            j.table + "_" + op,
                            """
                            \(base)
                            INSERT INTO \(history) (seq, txn, time, entity, pk, op, other)
                              SELECT base + row_number() OVER (ORDER BY \(alias)."a", \(alias)."b"), tx, tm, \(table), \(alias)."a",
                                \(op == "insert" ? "'I'" : "'D'"), \(alias)."b" FROM \(alias);
                            \(announce(channel))
                            """))
                }
                sql += triggers(PGSchema.qn(j.table), j.table)
            }
        }
        return sql
    }

    /// The statement trigger recording a table's inserts (`t` quoted, `name` unquoted).
    static func insertTrigger(_ t: String, _ name: String) -> String {
        "CREATE TRIGGER \(insertTriggerName(name)) AFTER INSERT ON \(t) REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION \(PGSchema.qn(functionPrefix + name + "_insert"))()"
    }

    static func insertTriggerName(_ name: String) -> String {
        PGSchema.qn(HistoryNaming.triggerPrefix + name + "_insert")
    }

    /// A run of consecutive new rows of one entity as the insert trigger records it (one
    /// row, `other` the last number unless it is the first): $1 token, $2 entity, $3 first,
    /// $4 last or NULL. For a bulk load that writes its run with the trigger dropped; its
    /// numbers come from the entity's sequence, so the trigger's `setval` has nothing to do.
    static let recordInsertRun = """
        INSERT INTO \(history) (seq, txn, time, entity, pk, op, other)
          SELECT coalesce(max(seq), 0) + 1, $1, NULL, $2, $3, 'I', $4 FROM \(history)
        """

    /// Drops every trigger function of the schema (CASCADE takes their triggers): a
    /// migration makes them anew for the new columns.
    static let drop = """
        DO $fetchd$ DECLARE f record; BEGIN
          FOR f IN SELECT p.oid::regprocedure AS sig FROM pg_proc p
            WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND p.proname LIKE '\\_fetchd\\_fn\\_%'
          LOOP EXECUTE 'DROP FUNCTION ' || f.sig || ' CASCADE'; END LOOP;
        END $fetchd$
        """
}
