import Testing

@testable import Predicates

/// The MATCHES subset PostgreSQL receives (`PGPatterns`), without a server: what is refused,
/// what is translated, and that the translation's `.` and `\d` are the ones Swift's Regex uses.
@Suite struct RegexTranslationTests {
    @Test func translatesTheSharedSubset() throws {
        #expect(try PGPatterns.regex("file[0-9]+", caseInsensitive: false) == "^(?:file[0-9]+)$")
        #expect(try PGPatterns.regex("A|a", caseInsensitive: false) == "^(?:A|a)$")
        #expect(try PGPatterns.regex("", caseInsensitive: false) == "^(?:)$")
        #expect(try PGPatterns.regex("(?:ab)*?c{2}x{,3}", caseInsensitive: false) == "^(?:(?:ab)*c{2}x{0,3})$")
        #expect(try PGPatterns.regex("é\\.", caseInsensitive: false) == "^(?:\\u00E9\\u002E)$")
        #expect(try PGPatterns.regex("[^a]", caseInsensitive: false) == "^(?:[^a])$")
    }

    @Test(arguments: [
        "(?i)ana", "a$", "^a", "a*+", "[[:alpha:]]", "[a-z&&[^c]]", "\\w", "\\s", "e\u{301}*", "a{", "[a-]",
        "\\1", "(?<n>a)", "a)", "(a", "\\p{L}", "a**",
    ])
    func refusesWhatCouldMeanSomethingElse(_ pattern: String) {
        #expect(throws: PGUnsupported.self) { try PGPatterns.regex(pattern, caseInsensitive: false) }
    }

    @Test func caseInsensitiveLiteralsBecomeTheirCaseGroups() throws {
        // Swift's Regex matches scalars with the same lower-case mapping: `k`, `K`, Kelvin sign.
        #expect(try PGPatterns.regex("k", caseInsensitive: true) == "^(?:[Kk\\u212A])$")
        #expect(
            try PGPatterns.regex("1.", caseInsensitive: true)
                == "^(?:1[^\\u000A\\u000B\\u000C\\u000D\\u0085\\u2028\\u2029])$")
        #expect(try PGPatterns.regex("[0-9]", caseInsensitive: true) == "^(?:[0-9])$")
        for refused in ["[a-z]", "[^k]", "\\d", "[\\d]", "(?i)k", "[Ⅰ-Ⅲ]"] {
            #expect(throws: PGUnsupported.self, "\(refused)") { try PGPatterns.regex(refused, caseInsensitive: true) }
        }
    }

    @Test func dotExcludesExactlyWhatSwiftExcludes() throws {
        let dot = try Regex(".").matchingSemantics(.unicodeScalar)
        for v in UInt32(0)...0x3000 {
            guard let s = Unicode.Scalar(v) else { continue }
            let matches = (try? dot.wholeMatch(in: String(String.UnicodeScalarView([s])))) != nil
            #expect(matches != PGPatterns.dotExcluded.contains(v), "U+\(String(v, radix: 16))")
        }
    }

    @Test func digitClassIsSwiftsDigitClass() throws {
        let digit = try Regex("\\d").matchingSemantics(.unicodeScalar)
        for v in stride(from: UInt32(0), through: 0x1FFFF, by: 1) {
            guard let s = Unicode.Scalar(v) else { continue }
            let swift = (try? digit.wholeMatch(in: String(String.UnicodeScalarView([s])))) != nil
            #expect(swift == (s.properties.numericType != nil), "U+\(String(v, radix: 16))")
        }
        #expect(PGPatterns.decimalDigitRanges.hasPrefix("0-9"))
    }

    @Test func likeEscapesPostgresWildcards() {
        #expect(PGPatterns.like("a*b?c") == "a%b_c")
        #expect(PGPatterns.like("100%_x") == "100\\%\\_x")
        #expect(PGPatterns.like("x\\*y\\?") == "x*y?")
        #expect(PGPatterns.like("a\\\\b") == "a\\\\b")
        #expect(PGPatterns.like("end\\") == "end\\\\")
    }
}
