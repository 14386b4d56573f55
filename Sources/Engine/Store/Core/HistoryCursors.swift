import Model

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long the history is kept (protocol.md §5, "Pruning"). A row goes once it is older
/// than `maxAge` or beyond the newest `maxRows`, and only when every live cursor has read it:
/// a cursor whose heartbeat is older than `staleAfter` no longer holds pruning back.
public struct HistoryRetention: Sendable {
    public var maxAge: Double = 7 * 86_400
    public var maxRows: Int64 = 100_000
    public var staleAfter: Double = 3_600
    /// A moved cursor is recorded at most this often (a lagging one only keeps more).
    public var cursorInterval: Double = 0
    /// A store that merges nothing still refreshes its heartbeat this often (while watching).
    public var heartbeatInterval: Double = 60
    /// Pruning runs inside a save at most this often.
    public var pruneInterval: Double = 60
    public init() {}

    /// The token below which an unforced prune may delete: rows older than `maxAge` (those
    /// below `firstYoung`) or beyond the newest `maxRows` (tokens are dense), and only those
    /// every live cursor has read.
    func pruneLimit(before: Int64, newest: Int64, firstYoung: Int64?, oldestLiveCursor: Int64) -> Int64 {
        let retained = max(firstYoung ?? newest + 1, newest - maxRows + 1)
        return min(before, retained, oldestLiveCursor + 1)
    }
}

/// What the upkeep remembers between saves.
struct HistoryUpkeep {
    var cursorToken: Int64 = -1
    var cursorTime: Double = 0
    var pruneTime: Double = 0

    /// Whether the cursor should be recorded now: it moved and the last record is older than
    /// `cursorInterval`, or the heartbeat is due.
    func cursorDue(_ mergeCursor: Int64, now: Double, _ retention: HistoryRetention) -> Bool {
        let moved = cursorToken != mergeCursor && now - cursorTime >= retention.cursorInterval
        return moved || now - cursorTime >= retention.heartbeatInterval
    }
}
