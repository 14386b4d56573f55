import Model
import Predicates
import SQLite

/// A batch's updates of some columns of one entity (`StoreBatch.updatedKeys`): per row its
/// history row and its `UPDATE`, two statements prepared once and bound again per row from
/// one buffer of the set values, so a row allocates and copies nothing of its own (10k
/// objects by `store/batchUpdateObjects`: a prepared-statement look-up and three arrays a
/// row before).
final class PartialRowWriter {
    private let columns: [String]
    /// The rows' history as read with them, when the batch brings it for these columns: the
    /// history row is then written from it, with no second read of the row.
    private let known: PriorHistory?
    private let record: Statement
    private let update: Statement
    private let txn: SQLValue
    private var set: [SQLValue] = []
    /// Whether a to-many relationship stored in a join table is among the keys.
    let joins: Bool

    /// Nil when the keys are not a part of the entity's columns (`SQLiteTable.partialUpdate`).
    init?(_ db: Connection, _ table: SQLiteTable, keys: [String], prior: PriorHistory?, txn: SQLValue) throws {
        guard let partial = table.partialUpdate(keys) else { return nil }
        columns = partial.columns
        known = prior.flatMap { $0.entity == table.entity.name && $0.columns == partial.columns ? $0 : nil }
        record = try db.prepare(known == nil ? partial.record : partial.recordKnown)
        update = try db.prepare(partial.update)
        self.txn = txn
        joins = partial.joins
    }

    /// Writes row `n` of the batch's updates: `id` given `values`.
    func write(_ id: ObjectID, _ values: Snapshot, row n: Int) throws {
        set.removeAll(keepingCapacity: true)
        for column in columns { set.append(ValueEncoding.sql(values[column] ?? .null)) }
        try record.bind(txn, at: 1)
        if let known {
            try record.bind(.integer(id.number), at: 2)
            try record.bind(.integer(known.versions[n]), at: 3)
            try record.bind(.text(known.old[n]), at: 4)
            for (j, value) in set.enumerated() {
                try record.bind(ValueEncoding.sql(known.stored(n, j)), at: Int32(5 + 2 * j))
                try record.bind(value, at: Int32(6 + 2 * j))
            }
        } else {
            for (j, value) in set.enumerated() { try record.bind(value, at: Int32(2 + j)) }
            try record.bind(.integer(id.number), at: Int32(2 + set.count))
        }
        try record.runBound()
        for (j, value) in set.enumerated() { try update.bind(value, at: Int32(1 + j)) }
        try update.bind(.integer(id.number), at: Int32(1 + set.count))
        try update.runBound()
    }
}
