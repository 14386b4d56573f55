import Model
import Testing

@testable import Predicates

/// `ByteOrder` and `Value`'s string equality read both strings' bytes in place: they must
/// answer what comparing the UTF-8 arrays answers, for small (inline) and heap strings,
/// strings sliced out of others, NUL and non-ASCII bytes, and prefixes.
@Suite struct ByteOrderTests {
    static let texts: [String] = {
        let long = String(repeating: "x", count: 40)
        let base = [
            "", "a", "b", "ab", "a\u{0}", "a\u{0}b", "é", "e\u{301}", "Zoë ☃ 𝄞", long, long + "a", long + "b",
            String(long.dropFirst(3)), String("prefix-" + long + "-suffix".dropLast(2)),
        ]
        return base + base.map { String(Substring($0)) }
    }()

    @Test func compareAndEqualAreThoseOfTheBytes() {
        for a in Self.texts {
            for b in Self.texts {
                let x = Array(a.utf8)
                let y = Array(b.utf8)
                let expected = x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
                #expect(ByteOrder.compare(a, b) == expected, "\(a.debugDescription) vs \(b.debugDescription)")
                #expect(ByteOrder.equal(a, b) == (x == y), "\(a.debugDescription) == \(b.debugDescription)")
                #expect((Value.string(a) == Value.string(b)) == (x == y), "Value \(a.debugDescription)")
            }
        }
    }
}
