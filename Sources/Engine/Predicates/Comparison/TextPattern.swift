import Model

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The string operators BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES with their options,
/// prepared once for a pattern (folded, LIKE parsed, regex compiled). The SQL function and
/// in-memory evaluation both call `matches`, so both paths give the same answer.
struct TextPattern: Sendable {
    enum Kind: Sendable { case beginsWith, endsWith, contains, like, matches }

    let kind: Kind
    let options: ComparisonOptions
    private let folded: String
    private let like: LikePattern?
    private let regex: RegexBox?

    /// Fails only for MATCHES with a pattern that is not a valid regular expression.
    init?(_ kind: Kind, options: ComparisonOptions, pattern: String) {
        self.kind = kind
        self.options = options.folding
        switch kind {
        case .matches:
            // Case is the regex engine's job (folding the subject would break `[A-Z]`);
            // diacritics are dropped from both sides.
            let p = TextFolding.fold(
                pattern, caseInsensitive: false, diacriticInsensitive: options.contains(.diacriticInsensitive))
            guard let r = RegexBox(p, ignoreCase: options.contains(.caseInsensitive)) else { return nil }
            folded = p
            like = nil
            regex = r
        case .like:
            folded = TextFolding.fold(pattern, options)
            like = LikePattern(folded)
            regex = nil
        default:
            folded = TextFolding.fold(pattern, options)
            like = nil
            regex = nil
        }
    }

    /// An empty BEGINSWITH/ENDSWITH/CONTAINS pattern matches nothing, as in Foundation.
    func matches(_ subject: String) -> Bool {
        switch kind {
        case .matches:
            let s = TextFolding.fold(
                subject, caseInsensitive: false, diacriticInsensitive: options.contains(.diacriticInsensitive))
            return regex!.wholeMatch(s)
        case .like:
            return like!.matches(TextFolding.fold(subject, options))
        case .beginsWith, .endsWith, .contains:
            return withUTF8Bytes(of: TextFolding.fold(subject, options), and: folded) { x, y in
                guard y.count > 0, y.count <= x.count else { return false }
                switch kind {
                case .beginsWith: return memcmp(x.baseAddress!, y.baseAddress!, y.count) == 0
                case .endsWith: return memcmp(x.baseAddress! + (x.count - y.count), y.baseAddress!, y.count) == 0
                default: return contains(x, y)
                }
            }
        }
    }
}

/// Whether `needle` (non-empty) occurs in `hay`, byte-wise; UTF-8 makes every byte match
/// start on a scalar boundary.
private func contains(_ hay: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
    let first = needle[0]
    var i = 0
    let last = hay.count - needle.count
    while i <= last {
        if hay[i] == first && memcmp(hay.baseAddress! + i, needle.baseAddress!, needle.count) == 0 { return true }
        i += 1
    }
    return false
}

/// A compiled regular expression (Swift Regex, matching Unicode scalars). Immutable once
/// built, so sharing it is safe.
final class RegexBox: @unchecked Sendable {
    private let regex: Regex<AnyRegexOutput>

    /// Nil for a pattern Swift's Regex cannot compile; the caller reports it as invalid.
    init?(_ pattern: String, ignoreCase: Bool) {
        guard let r = try? Regex(pattern) else { return nil }
        regex = r.matchingSemantics(.unicodeScalar).ignoresCase(ignoreCase)
    }

    /// Matching only throws for patterns that use custom matchers, which compiled patterns
    /// never contain; a throw would mean "no match" either way.
    func wholeMatch(_ s: String) -> Bool { (try? regex.wholeMatch(in: s)) != nil }
}
