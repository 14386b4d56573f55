// The standard library's own canonical decomposition (the one String comparison uses), so
// the binary needs no Foundation and none of the ICU data that full Foundation links in.
@_spi(_Unicode) import Swift

/// Case and diacritic folding for `[c]`, `[d]`, `caseInsensitiveCompare` and
/// `localizedStandardCompare`: the one implementation both SQL (through registered
/// functions and collations) and in-memory evaluation use.
///
/// `[c]` maps every scalar to its Unicode lower-case mapping (context free, so a fold of a
/// prefix is a prefix of the fold). `[d]` decomposes canonically (NFD) and drops nonspacing
/// marks, so `é`, `e` + U+0301 and `e` fold alike. SQLite's own `lower()`, `NOCASE` and
/// `LIKE` fold ASCII only, which is why none of them is used.
public enum TextFolding {
    public static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if !caseInsensitive && !diacriticInsensitive { return text }
        if isASCII(text) {
            return caseInsensitive ? asciiLowercased(text) : text
        }
        var out = text
        if caseInsensitive { out = lowercased(out) }
        if diacriticInsensitive { out = withoutMarks(out) }
        return out
    }

    public static func fold(_ text: String, _ options: ComparisonOptions) -> String {
        fold(
            text, caseInsensitive: options.contains(.caseInsensitive),
            diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    static func isASCII(_ text: String) -> Bool {
        var t = text
        return t.withUTF8 { bytes in
            for b in bytes where b >= 0x80 { return false }
            return true
        }
    }

    private static func asciiLowercased(_ text: String) -> String {
        var t = text
        return t.withUTF8 { bytes in
            var needs = false
            for b in bytes where b >= 65 && b <= 90 {
                needs = true
                break
            }
            if !needs { return text }
            return String(unsafeUninitializedCapacity: bytes.count) { out in
                for (i, b) in bytes.enumerated() { out[i] = b >= 65 && b <= 90 ? b + 32 : b }
                return bytes.count
            }
        }
    }

    private static func lowercased(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if s.isASCII {
                out.append(s.value >= 65 && s.value <= 90 ? Unicode.Scalar(s.value + 32)! : s)
            } else {
                out.append(contentsOf: s.properties.lowercaseMapping.unicodeScalars)
            }
        }
        return String(out)
    }

    private static func withoutMarks(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for s in text._nfd
        where s.properties.generalCategory != .nonspacingMark {
            out.append(s)
        }
        return String(out)
    }
}
