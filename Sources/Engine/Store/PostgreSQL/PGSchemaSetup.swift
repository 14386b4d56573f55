import Model
import Postgres
import Predicates

/// Opening a schema: the session's settings, then creating the store or migrating it.
enum PGSchemaSetup {
    /// Every session of the store: its schema first in the search path, floats in their exact
    /// shortest form, bytea as hex (what `PGValueEncoding` reads). Rows passed on by parallel
    /// workers cost a tenth of the default, so a big sorted key read (a controller's fetch)
    /// sorts in parallel (Benchmarks/README.md, "Measurements behind the code"); the setup
    /// cost keeps small queries serial.
    static func configure(_ c: PGConnection, schema: String) throws(PGError) {
        try c.exec(
            "SET search_path TO \(SchemaNaming.quoted(schema)); SET extra_float_digits = 3; SET bytea_output = 'hex'; SET client_min_messages = warning; SET parallel_tuple_cost = 0.01"
        )
    }

    /// Creates the schema's store when it has none, or migrates it to `model` (the rules of
    /// `MigrationPlan`). Both under a session advisory lock, so two processes opening a new
    /// schema at once create it once. Returns whether the model changed, and its version.
    static func prepare(_ db: PGConnection, model: ObjectModel, schema: String, path: String) throws(EngineError) -> (
        Bool, Int64
    ) {
        let meta = SchemaNaming.quoted(SchemaNaming.metadataTable)
        func fail(_ error: any Error) -> EngineError {
            if let e = error as? EngineError { return e }
            let message = (error as? PGError)?.message ?? "\(error)"
            return EngineError(
                .storeError, "cannot prepare the schema \(schema) of \(path): \(message)",
                [("path", .string(path)), ("schema", .string(schema)), ("message", .string(message))])
        }
        do {
            try db.exec(
                "SELECT pg_advisory_lock(\(PGHistorySchema.openLockClass), hashtext($1))", [.text(schema)])
            defer { _ = try? db.exec("SELECT pg_advisory_unlock_all()") }
            try db.exec("CREATE SCHEMA IF NOT EXISTS \(SchemaNaming.quoted(schema))")
            try configure(db, schema: schema)
            let tables = try db.exec(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [.text(schema)]
            ).rows.map { $0[0] ?? "" }
            if !tables.contains(SchemaNaming.metadataTable) {
                guard tables.isEmpty else {
                    throw EngineError(
                        .storeError, "schema \(schema) of \(path) has tables but is not a fetchd store",
                        [("path", .string(path)), ("schema", .string(schema))])
                }
                try db.transaction {
                    for statement in PGSchema.create(model) { try db.exec(statement) }
                    for statement in PGFunctions.setupStatements { try db.exec(statement) }
                    for statement in PGHistorySchema.tables { try db.exec(statement) }
                    try installTriggers(db, model, schema)
                    try db.exec(
                        "INSERT INTO \(meta) (key, value) VALUES ('model', $1), ('modelVersion', '1')",
                        [.text(ModelArchive.encode(model))])
                }
                return (false, 1)
            }
            let rows = try db.exec("SELECT key, value FROM \(meta)").rows
            let values = Dictionary(rows.map { ($0[0] ?? "", $0[1]) }, uniquingKeysWith: { a, _ in a })
            guard let text = values["model"] ?? nil, let stored = ModelArchive.decode(text) else {
                throw EngineError(
                    .storeError, "schema \(schema) of \(path) has no readable model", [("path", .string(path))])
            }
            let version = (values["modelVersion"] ?? nil).flatMap { Int64($0) } ?? 1
            if stored == model { return (false, version) }
            var columns: [String: Set<String>] = [:]
            for e in stored.entities {
                let names = try db.exec(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
                    [.text(schema), .text(e.name)])
                columns[e.name] = Set(names.rows.map { ($0[0] ?? "").lowercased() })
            }
            let plan = try MigrationPlan(from: stored, to: model, existingColumns: columns, ddl: PGSchema.self)
            try db.transaction {
                // Writers wait: the tables change under them.
                try db.exec(
                    "SELECT pg_advisory_xact_lock(\(PGHistorySchema.lockClass), hashtext($1))", [.text(schema)])
                try db.exec(PGHistorySchema.drop)
                for (n, step) in plan.steps.enumerated() {
                    WorkProgress.current?.phase("migrating: step \(n + 1) of \(plan.steps.count)")
                    switch step {
                    case .sql(let sql): try db.exec(sql)
                    case .fill(let entity, let column, let value):
                        let c = SchemaNaming.quoted(column)
                        try db.exec(
                            "UPDATE \(SchemaNaming.quoted(entity)) SET \(c) = $1 WHERE \(c) IS NULL",
                            [PGValueEncoding.parameter(value).map(PGValue.text)])
                    }
                }
                for statement in PGSchema.foreignKeys(model) { try db.exec(statement) }
                try installTriggers(db, model, schema)
                try db.exec("UPDATE \(meta) SET value = $1 WHERE key = 'model'", [.text(ModelArchive.encode(model))])
                try db.exec(
                    "INSERT INTO \(meta) (key, value) VALUES ('modelVersion', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(String(version + 1))])
            }
            return (true, version + 1)
        } catch { throw fail(error) }
    }

    private static func installTriggers(_ db: PGConnection, _ model: ObjectModel, _ schema: String) throws {
        for statement in PGHistorySchema.install(
            model, schema: schema, channel: PGChangeListener.channel(schema: schema))
        {
            try db.exec(statement)
        }
    }
}
