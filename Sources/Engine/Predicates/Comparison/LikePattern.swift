/// An NSPredicate LIKE pattern: `*` any run of characters (none included), `?` exactly one,
/// `\` makes the next character literal; everything else (`%`, `_`, `[`, ...) is literal.
/// Characters are Unicode scalars. The whole string must match.
struct LikePattern: Sendable {
    private enum Element: Equatable, Sendable {
        case scalar(Unicode.Scalar)
        case one, any
    }
    private let elements: [Element]

    init(_ pattern: String) {
        var out: [Element] = []
        var escaped = false
        for s in pattern.unicodeScalars {
            if escaped {
                out.append(.scalar(s))
                escaped = false
                continue
            }
            switch s {
            case "\\": escaped = true
            case "*": if out.last != .any { out.append(.any) }
            case "?": out.append(.one)
            default: out.append(.scalar(s))
            }
        }
        if escaped { out.append(.scalar("\\")) }
        elements = out
    }

    /// Greedy matching with one backtrack point (the last `*`): linear memory, no recursion.
    func matches(_ text: String) -> Bool {
        let s = Array(text.unicodeScalars)
        var i = 0
        var p = 0
        var star = -1
        var mark = 0
        while i < s.count {
            if p < elements.count {
                switch elements[p] {
                case .any:
                    star = p
                    mark = i
                    p += 1
                    continue
                case .one:
                    i += 1
                    p += 1
                    continue
                case .scalar(let c) where c == s[i]:
                    i += 1
                    p += 1
                    continue
                default: break
                }
            }
            guard star >= 0 else { return false }
            p = star + 1
            mark += 1
            i = mark
        }
        while p < elements.count, elements[p] == .any { p += 1 }
        return p == elements.count
    }
}
