/// NSPredicate LIKE patterns and MATCHES regular expressions (Swift Regex syntax) rewritten
/// for PostgreSQL's LIKE and its ARE regexes. Patterns are already folded (`[d]`) by Swift, as
/// `TextPattern` folds them. MATCHES is translated only for a subset whose meaning is the same
/// in both engines; anything else is `PGUnsupported`, never a regex that means something else.
enum PGPatterns {
    /// LIKE with `\` as escape: `*` is `%`, `?` is `_`; `%`, `_` and `\` themselves are escaped.
    /// A trailing lone `\` is a literal backslash, as `LikePattern` reads it.
    static func like(_ pattern: String) -> String {
        var out = ""
        var escaped = false
        for s in pattern.unicodeScalars {
            if escaped {
                out += literalLike(s)
                escaped = false
                continue
            }
            switch s {
            case "\\": escaped = true
            case "*": out += "%"
            case "?": out += "_"
            default: out += literalLike(s)
            }
        }
        if escaped { out += "\\\\" }
        return out
    }

    private static func literalLike(_ s: Unicode.Scalar) -> String {
        s == "%" || s == "_" || s == "\\" ? "\\" + String(s) : String(s)
    }

    /// `^(?:translated)$`, a whole-string ARE match for PostgreSQL's `~` with `COLLATE "C"`.
    ///
    /// Supported: literal scalars (and `\` before ASCII punctuation), `.`, `\d`, bracket
    /// classes of literals and ranges (optionally negated), groups `( )` and `(?: )`,
    /// alternation, and the quantifiers `* + ? {n} {n,} {n,m} {,m}` (lazy forms too: a
    /// whole-match test does not depend on laziness). Case-insensitive (`[c]`), a literal
    /// matches every scalar with the same lower-case mapping, as in Swift's Regex (`k`, `K`
    /// and the Kelvin sign), so it becomes a class of them; classes and `\d`, whose
    /// case-insensitive meaning Swift defines otherwise, are refused then unless every member
    /// is caseless. Refused: anchors (`$` also matches before a final newline in Swift), other
    /// escapes and classes, possessive quantifiers, `(?` options (`(?i)` included), and
    /// patterns with a multi-scalar character (Swift quantifies the whole character).
    static func regex(_ pattern: String, caseInsensitive: Bool) throws(PGUnsupported) -> String {
        for c in pattern where c.unicodeScalars.count > 1 {
            throw PGUnsupported("MATCHES with a multi-scalar character in the pattern")
        }
        var p = RegexReader(Array(pattern.unicodeScalars), caseInsensitive: caseInsensitive)
        let body = try p.translate()
        return "^(?:" + body + ")$"
    }

    /// A scalar as an ARE character-entry escape (valid inside and outside brackets), ASCII
    /// letters and digits as themselves.
    static func escaped(_ v: UInt32) -> String {
        if (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) {
            return String(Unicode.Scalar(v)!)
        }
        let hex = String(v, radix: 16, uppercase: true)
        return v <= 0xFFFF
            ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// What `.` matches in Swift's Regex under Unicode-scalar semantics: anything but these.
    static let dotExcluded: [UInt32] = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]

    /// `\d` in Swift's Regex under Unicode-scalar semantics: every scalar with a numeric
    /// type (not only Nd: also `²`, `¼`, CJK numerals), as ARE ranges.
    static let decimalDigitRanges: String = {
        var out = ""
        var start: UInt32?
        var last: UInt32 = 0
        for v in UInt32(0)...0x10FFFF {
            let isDigit = Unicode.Scalar(v).map { $0.properties.numericType != nil } ?? false
            if isDigit {
                if start == nil { start = v }
                last = v
            } else if let s = start {
                out += s == last ? escaped(s) : escaped(s) + "-" + escaped(last)
                start = nil
            }
        }
        return out
    }()
}

extension PGPatterns {
    /// Scalars sharing a lower-case mapping with another scalar, with all of them (itself
    /// included), ascending. What a literal matches under Swift's case-insensitive Regex.
    static let caseGroups: [UInt32: [UInt32]] = {
        var byMapping: [String: [UInt32]] = [:]
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            switch s.properties.generalCategory {
            case .unassigned, .privateUse, .surrogate: continue
            default: byMapping[s.properties.lowercaseMapping, default: []].append(v)
            }
        }
        var out: [UInt32: [UInt32]] = [:]
        for group in byMapping.values where group.count > 1 {
            for v in group { out[v] = group }
        }
        return out
    }()

    /// No case at all: its own lower, upper and title case, and no other scalar's lower case.
    static func isCaseless(_ v: UInt32) -> Bool {
        guard let s = Unicode.Scalar(v) else { return true }
        let own = String(Character(s))
        let p = s.properties
        return caseGroups[v] == nil && p.lowercaseMapping == own && p.uppercaseMapping == own
            && p.titlecaseMapping == own
    }
}

/// A PostgreSQL construct that cannot agree exactly with the in-memory evaluator: the caller
/// evaluates the predicate in memory instead (or reports it), never runs a different query.
public struct PGUnsupported: Error, Equatable, CustomStringConvertible {
    public let construct: String
    public init(_ construct: String) { self.construct = construct }
    public var description: String { "not translatable to PostgreSQL exactly: \(construct)" }
}

/// A recursive-descent reader of the supported regex subset, writing ARE as it goes.
private struct RegexReader {
    let s: [Unicode.Scalar]
    let caseInsensitive: Bool
    var i = 0
    init(_ s: [Unicode.Scalar], caseInsensitive: Bool) {
        self.s = s
        self.caseInsensitive = caseInsensitive
    }

    /// A literal scalar: itself, or under `[c]` the class of its case group.
    func literal(_ v: UInt32) -> String {
        guard caseInsensitive, let group = PGPatterns.caseGroups[v] else { return PGPatterns.escaped(v) }
        return "[" + group.map(PGPatterns.escaped).joined() + "]"
    }

    /// Classes keep their case-sensitive meaning only when no member has a case.
    func requireCaseless(_ low: UInt32, _ high: UInt32) throws(PGUnsupported) {
        guard caseInsensitive else { return }
        if high - low > 0x10000 || !(low...high).allSatisfy(PGPatterns.isCaseless) {
            throw PGUnsupported("MATCHES[c] with a class of cased characters")
        }
    }

    var atEnd: Bool { i >= s.count }
    var peek: Unicode.Scalar? { atEnd ? nil : s[i] }

    mutating func translate() throws(PGUnsupported) -> String {
        let out = try alternation()
        if !atEnd { throw PGUnsupported("MATCHES with an unbalanced ')'") }
        return out
    }

    mutating func alternation() throws(PGUnsupported) -> String {
        var out = try sequence()
        while peek == "|" {
            i += 1
            out += "|" + (try sequence())
        }
        return out
    }

    mutating func sequence() throws(PGUnsupported) -> String {
        var out = ""
        while let c = peek, c != "|", c != ")" {
            out += try atom()
            out += try quantifier()
        }
        return out
    }

    mutating func atom() throws(PGUnsupported) -> String {
        let c = s[i]
        i += 1
        switch c {
        case ".":
            return "[^" + PGPatterns.dotExcluded.map(PGPatterns.escaped).joined() + "]"
        case "(":
            if peek == "?" {
                guard i + 1 < s.count, s[i + 1] == ":" else { throw PGUnsupported("MATCHES with a (? group option") }
                i += 2
            }
            let inner = try alternation()
            guard peek == ")" else { throw PGUnsupported("MATCHES with an unclosed '('") }
            i += 1
            return "(?:" + inner + ")"
        case "[": return try bracket()
        case "\\": return try escape(inClass: false)
        case "^", "$": throw PGUnsupported("MATCHES with an anchor")
        case "*", "+", "?", "{", "}", "]", ")":
            throw PGUnsupported("MATCHES with '\(c)' where an atom is expected")
        default: return literal(c.value)
        }
    }

    mutating func escape(inClass: Bool) throws(PGUnsupported) -> String {
        guard let e = peek else { throw PGUnsupported("MATCHES ending in '\\'") }
        i += 1
        if e == "d" {
            // Roman numerals have case: what `\d` means case-insensitively is Swift's business.
            if caseInsensitive { throw PGUnsupported("MATCHES[c] with \\d") }
            return inClass ? PGPatterns.decimalDigitRanges : "[" + PGPatterns.decimalDigitRanges + "]"
        }
        if e.isASCII && !e.properties.isAlphabetic && !(e >= "0" && e <= "9") && e.value > 0x20 {
            return PGPatterns.escaped(e.value)
        }
        throw PGUnsupported("MATCHES with the escape '\\\(e)'")
    }

    /// `[^a-z.\d]`: literals, ranges of literals and `\d`; set operations, POSIX classes,
    /// nested classes and a `-` that is not a range are refused.
    mutating func bracket() throws(PGUnsupported) -> String {
        var out = "["
        if peek == "^" {
            out += "^"
            i += 1
        }
        var items = 0
        while let c = peek, c != "]" {
            i += 1
            var low: String
            var lowScalar: Unicode.Scalar?
            switch c {
            case "[", "&", "~", "-": throw PGUnsupported("MATCHES with '\(c)' in a character class")
            case "\\":
                if peek == "d" {
                    if caseInsensitive { throw PGUnsupported("MATCHES[c] with \\d") }
                    i += 1
                    out += PGPatterns.decimalDigitRanges
                    items += 1
                    continue
                }
                guard let e = peek, e.isASCII, !e.properties.isAlphabetic, !(e >= "0" && e <= "9"), e.value > 0x20
                else { throw PGUnsupported("MATCHES with an escape in a character class") }
                i += 1
                low = PGPatterns.escaped(e.value)
                lowScalar = e
            default:
                low = PGPatterns.escaped(c.value)
                lowScalar = c
            }
            if peek == "-" {
                guard i + 1 < s.count, s[i + 1] != "]", s[i + 1] != "\\", s[i + 1] != "[", let lo = lowScalar else {
                    throw PGUnsupported("MATCHES with a '-' that is not a range")
                }
                let hi = s[i + 1]
                guard lo.value <= hi.value else { throw PGUnsupported("MATCHES with a reversed range") }
                try requireCaseless(lo.value, hi.value)
                i += 2
                low += "-" + PGPatterns.escaped(hi.value)
            } else if let lowScalar {
                try requireCaseless(lowScalar.value, lowScalar.value)
            }
            out += low
            items += 1
        }
        guard peek == "]", items > 0 else { throw PGUnsupported("MATCHES with an empty or unclosed class") }
        i += 1
        return out + "]"
    }

    mutating func quantifier() throws(PGUnsupported) -> String {
        guard let c = peek else { return "" }
        var q: String
        switch c {
        case "*", "+", "?":
            i += 1
            q = String(c)
        case "{":
            guard let (text, end) = braces(from: i) else { throw PGUnsupported("MATCHES with a literal '{'") }
            i = end
            q = text
        default: return ""
        }
        if peek == "?" {
            i += 1 // lazy: the same whole matches exist
        } else if peek == "+" {
            throw PGUnsupported("MATCHES with a possessive quantifier")
        }
        if let next = peek, "*+?{".unicodeScalars.contains(next) {
            throw PGUnsupported("MATCHES with stacked quantifiers")
        }
        return q
    }

    /// `{n}`, `{n,}`, `{n,m}`, `{,m}` starting at `start`: the ARE form (bounds up to 255, the
    /// ARE limit) and the index after it; nil when it is not a quantifier.
    func braces(from start: Int) -> (String, Int)? {
        var j = start + 1
        func number() -> Int? {
            var n = 0
            var digits = 0
            while j < s.count, s[j] >= "0", s[j] <= "9" {
                n = min(n * 10 + Int(s[j].value - 48), 1000)
                digits += 1
                j += 1
            }
            return digits > 0 ? n : nil
        }
        let low = number()
        var high: Int?? = .some(low)
        if j < s.count, s[j] == "," {
            j += 1
            high = .some(number())
            if low == nil && high! == nil { return nil }
        } else if low == nil {
            return nil
        }
        guard j < s.count, s[j] == "}" else { return nil }
        let lo = low ?? 0
        if lo > 255 || (high! ?? 0) > 255 { return nil }
        if let h = high!, h < lo { return nil }
        let text: String
        switch high {
        case .some(.some(let h)) where h == lo && low != nil && s[j - 1] != ",":
            text = "{\(lo)}"
        case .some(.some(let h)): text = "{\(lo),\(h)}"
        default: text = "{\(lo),}"
        }
        return (text, j + 1)
    }
}
