import Model

/// The names and layout both stores give the change history (protocol.md §5): the tables,
/// the triggers' prefix, a row's value columns, and SQL text literals. Each dialect writes
/// its own DDL and triggers with these (SQLite/HistorySchema.swift, PostgreSQL/PGHistorySchema.swift).
///
/// - `_fetchd_history`: `seq` (the token: commit order across processes), `txn` (the
///   `_fetchd_transactions` row of a fetchd writer, NULL for a plain client), `time` (unix
///   seconds, only for plain clients), `entity`, `pk`, `op` (`I`, `U`, `D`), `keys` (an
///   update's changed columns, comma-separated), `version` and `old` (an update's or
///   delete's old version and values). A join table's row has the join table as `entity`,
///   column a as `pk` and column b as `other`; fetchd records a run of
///   inserted numbers as one `I` row from `pk` to `other`.
/// - `_fetchd_transactions`: one row per fetchd write (author, origin process, time).
/// - `_fetchd_cursors`: one row per open store that merges (`consumer`: its origin), the
///   token it has merged up to and its last `heartbeat` (HistoryCursors.swift).
enum HistoryNaming {
    static let history = "_fetchd_history"
    static let transactions = "_fetchd_transactions"
    static let triggerPrefix = "_fetchd_trg_"
    /// One row per open store (any process) that merges the history: how far it has read.
    static let cursors = "_fetchd_cursors"

    /// `'text'` with embedded quotes doubled.
    static func literal(_ s: String) -> String { SchemaNaming.stringLiteral(s) }

    /// The columns after `_version` (attributes, then to-one relationships), as
    /// `EntityTable` reads them and as a row's old values are recorded.
    static func columns(_ e: Entity) -> [(name: String, type: AttributeType?)] {
        e.attributes.map { ($0.name, $0.type) } + e.relationships.filter(SchemaNaming.hasColumn).map { ($0.name, nil) }
    }
}
