#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wall-clock time and process identity, as both stores record them in the history.
enum StoreClock {
    /// Unix seconds.
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Unique enough to tell processes and stores apart on one dataset: pid, clock, random.
    static func newOrigin() -> String {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return "\(getpid())-\(t.tv_sec)-\(t.tv_nsec)-\(UInt32.random(in: 0...UInt32.max))"
    }
}
