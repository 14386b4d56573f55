import TestSupport

/// The randomized tests' generator (SplitMix64, shared), with the draws they use.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
}

/// How many random cycles/operations a randomized test runs: `FETCHD_ORACLE_CYCLES`
/// overrides the default for soak runs.
func iterations(default n: Int) -> Int {
    if let text = getenvString("FETCHD_ORACLE_CYCLES"), let v = Int(text), v > 0 { return v }
    return n
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func getenvString(_ name: String) -> String? {
    guard let p = getenv(name) else { return nil }
    return String(cString: p)
}
