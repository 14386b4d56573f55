#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nanoseconds on the monotonic clock: for durations, never for dates.
public func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
