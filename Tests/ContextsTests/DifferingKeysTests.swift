import Model
import Testing

@testable import Contexts

/// The cycle's shared key sets are exactly the keys whose values differ, pair by pair,
/// whatever came before (equal sets reuse the previous one's storage).
@Suite struct DifferingKeysTests {
    @Test func sharedSetsEqualFreshOnes() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        func snapshot() -> Snapshot? {
            if next(5) == 0 { return nil }
            var s: Snapshot = [:]
            for key in ["a", "b", "c", "dé"] where next(4) != 0 {
                s[key] = next(3) == 0 ? .null : .integer(Int64(next(3)))
            }
            return s
        }
        /// By definition: every key either side has whose value is not the same on both.
        func expected(_ a: Snapshot?, _ b: Snapshot?) -> Set<String> {
            guard let a, let b else { return Set((a ?? b ?? [:]).keys) }
            return Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }
        }
        var keys = DifferingKeys()
        for _ in 0..<5000 {
            let (a, b) = (snapshot(), snapshot())
            #expect(keys(a, b) == expected(a, b))
            #expect(differingKeys(a, b) == expected(a, b))
        }
    }
}
