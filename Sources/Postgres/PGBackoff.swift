/// Delays between reconnect attempts: `initial`, doubling after each failure, capped at
/// `maximum`; `reset()` after a success.
public struct PGBackoff: Sendable, Equatable {
    public let initialMilliseconds: Int
    public let maximumMilliseconds: Int
    /// Failed attempts since the last success.
    public private(set) var failures = 0

    public init(initialMilliseconds: Int = 50, maximumMilliseconds: Int = 5000) {
        precondition(initialMilliseconds > 0 && maximumMilliseconds >= initialMilliseconds)
        self.initialMilliseconds = initialMilliseconds
        self.maximumMilliseconds = maximumMilliseconds
    }

    /// The wait before the next attempt (`initial` after no failure).
    public var delayMilliseconds: Int {
        var delay = initialMilliseconds
        for _ in 0..<failures {
            delay *= 2
            if delay >= maximumMilliseconds { return maximumMilliseconds }
        }
        return delay
    }

    /// Records a failed attempt: the next delay doubles (up to the maximum).
    public mutating func failed() { failures += 1 }

    public mutating func reset() { failures = 0 }
}
