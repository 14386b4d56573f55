import Model

/// A batch's "writing rows" progress (`WorkProgress`), reported every 4096 rows as both
/// stores walk its inserts.
struct RowProgress {
    let progress = WorkProgress.current
    let total: Int
    private var nextReport = 0

    init(total: Int) { self.total = total }

    /// At row `k`: reports when another 4096 rows went by.
    mutating func at(_ k: Int) {
        guard let progress, k >= nextReport else { return }
        progress.step("writing rows", done: k, of: total)
        nextReport = k + 4096
    }

    func phase(_ what: String) { progress?.phase(what) }
}
