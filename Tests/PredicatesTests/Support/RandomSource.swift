import Model
import TestSupport

/// SplitMix64: a small deterministic generator, so a failing seed can be replayed.
struct RandomSource: RandomNumberGenerator {
    private var generator: SplitMix64
    /// Variables the predicate generator bound while writing `$names`.
    var variables: [String: Value] = [:]
    var listVariables: [String: [Value]] = [:]
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ xs: [T]) -> T { xs[Int.random(in: 0..<xs.count, using: &self)] }
    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &self) }
}
