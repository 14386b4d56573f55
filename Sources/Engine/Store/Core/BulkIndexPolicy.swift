/// When a bulk insert drops an entity's indexes and builds them again after its rows (both
/// stores, in the insert's own transaction): many rows, and at least as many as the table
/// holds. One sort of the whole table then costs less than as many index insertions in
/// random key order.
enum BulkIndexPolicy {
    /// Fewer new rows of one entity never rebuild.
    static let minimumRows = 20_000

    /// Whether `rows` new rows rebuild; `held` counts the table's rows (asked only when
    /// `rows` is many).
    static func rebuilds(rows: Int, held: () throws -> Int) rethrows -> Bool {
        guard rows >= minimumRows else { return false }
        return try held() <= rows
    }
}
