import Foundation

/// Monotonic time in microseconds; all benchmark figures are reported in µs.
enum Clock {
    static func nowMicros() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
    }

    static func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = nowMicros()
        try body()
        return nowMicros() - start
    }
}
