/// How many terminal cells a text takes, so `--format table` lines up CJK text and emoji:
/// a character (grapheme cluster) is two cells when its first scalar is East Asian Wide or
/// Fullwidth, or an emoji shown as one; none when it is a control or format character; one
/// otherwise. Combining marks and joined emoji are part of their cluster, so they add nothing.
enum TerminalWidth {
    static func cells(_ text: String) -> Int {
        var total = 0
        for character in text { total += cells(character) }
        return total
    }

    static func cells(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.isASCII { return first.value < 0x20 || first.value == 0x7F ? 0 : 1 }
        let properties = first.properties
        switch properties.generalCategory {
        case .control, .format: return 0
        default: break
        }
        if isWide(first.value) || properties.isEmojiPresentation { return 2 }
        // A text-default emoji followed by VARIATION SELECTOR-16 is drawn as an emoji.
        if properties.isEmoji, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return 1
    }

    /// The East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, W and F),
    /// folded into ranges; emoji are decided by their own property above.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        return wide.contains { $0.contains(value) }
    }
}
