import Model

/// Splits a predicate format string into tokens.
///
/// Offsets count Unicode scalars, so an error points at the same column a client sees in
/// any plain-text rendering of the predicate.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private let source: String
    private var i = 0

    init(_ source: String) {
        self.source = source
        self.scalars = Array(source.unicodeScalars)
    }

    /// Every token, ending with `.end`.
    static func tokens(of source: String) throws(EngineError) -> [Token] {
        var lexer = Lexer(source)
        var out: [Token] = []
        while true {
            let t = try lexer.next()
            out.append(t)
            if t.kind == .end { return out }
        }
    }

    private func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < scalars.count ? scalars[i + k] : nil }

    private func error(_ offset: Int, expected: String) -> EngineError {
        PredicateSyntax.error(source, offset: offset, expected: expected)
    }

    mutating func next() throws(EngineError) -> Token {
        while let c = peek(), c.properties.isWhitespace { i += 1 }
        let start = i
        guard let c = peek() else { return Token(kind: .end, offset: start) }
        func tok(_ kind: Token.Kind, _ length: Int) -> Token {
            i += length
            return Token(kind: kind, offset: start)
        }
        func sym(_ s: Symbol, _ length: Int) -> Token { tok(.symbol(s), length) }

        switch c {
        case "(": return sym(.openParen, 1)
        case ")": return sym(.closeParen, 1)
        case "{": return sym(.openBrace, 1)
        case "}": return sym(.closeBrace, 1)
        case "[": return sym(.openBracket, 1)
        case "]": return sym(.closeBracket, 1)
        case ",": return sym(.comma, 1)
        case "-": return sym(.minus, 1)
        case ".":
            if let d = peek(1), Lexer.isDigit(d) { return try number() }
            return sym(.dot, 1)
        case "=":
            if peek(1) == "=" { return sym(.equal, 2) }
            if peek(1) == "<" { return sym(.lessOrEqual, 2) }
            if peek(1) == ">" { return sym(.greaterOrEqual, 2) }
            return sym(.equal, 1)
        case "!":
            return peek(1) == "=" ? sym(.notEqual, 2) : sym(.bang, 1)
        case "<":
            if peek(1) == "=" { return sym(.lessOrEqual, 2) }
            if peek(1) == ">" { return sym(.notEqual, 2) }
            return sym(.less, 1)
        case ">":
            return peek(1) == "=" ? sym(.greaterOrEqual, 2) : sym(.greater, 1)
        case "&":
            if peek(1) == "&" { return sym(.andAnd, 2) }
            throw error(start, expected: "'&&'")
        case "|":
            if peek(1) == "|" { return sym(.orOr, 2) }
            throw error(start, expected: "'||'")
        case "\"", "'":
            return try string(quote: c)
        case "$":
            i += 1
            guard let name = word() else { throw error(i, expected: "a variable name after '$'") }
            return Token(kind: .variable(name), offset: start)
        case "@":
            i += 1
            guard let name = word() else { throw error(i, expected: "a collection operator after '@'") }
            return Token(kind: .collectionOperator(name.lowercased()), offset: start)
        case "#":
            i += 1
            guard let name = word() else { throw error(i, expected: "an identifier after '#'") }
            return Token(kind: .identifier(name), offset: start)
        case "%":
            throw error(start, expected: "a $variable (format arguments such as %@ and %K are not supported)")
        default:
            if Lexer.isDigit(c) { return try number() }
            if let name = word() {
                if let k = Keyword.byName[name.uppercased()] { return Token(kind: .keyword(k), offset: start) }
                return Token(kind: .identifier(name), offset: start)
            }
            throw error(start, expected: "a key path, literal, operator or parenthesis")
        }
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
    private static func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
    private static func isWordPart(_ c: Unicode.Scalar) -> Bool {
        isWordStart(c) || c.properties.numericType == .decimal
    }

    private mutating func word() -> String? {
        guard let c = peek(), Lexer.isWordStart(c) else { return nil }
        var s = String.UnicodeScalarView()
        while let c = peek(), Lexer.isWordPart(c) {
            s.append(c)
            i += 1
        }
        return String(s)
    }

    private mutating func number() throws(EngineError) -> Token {
        let start = i
        if peek() == "0", let p = peek(1), let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][Character(p)]
        {
            i += 2
            var v: UInt64 = 0
            var any = false
            while let c = peek(), let d = Lexer.digitValue(c), d < radix {
                let (m, o1) = v.multipliedReportingOverflow(by: UInt64(radix))
                let (a, o2) = m.addingReportingOverflow(UInt64(d))
                guard !o1, !o2, a <= UInt64(Int64.max) else {
                    throw error(start, expected: "an integer within 64 bits")
                }
                v = a
                any = true
                i += 1
            }
            guard any else {
                throw error(
                    i, expected: radix == 16 ? "hexadecimal digits" : radix == 8 ? "octal digits" : "binary digits")
            }
            if let c = peek(), Lexer.isWordPart(c) { throw error(i, expected: "an operator after the number") }
            return Token(kind: .integer(Int64(v)), offset: start)
        }
        var text = ""
        var isReal = false
        while let c = peek(), Lexer.isDigit(c) {
            text.unicodeScalars.append(c)
            i += 1
        }
        if peek() == ".", let d = peek(1), Lexer.isDigit(d) {
            isReal = true
            text += "."
            i += 1
            while let c = peek(), Lexer.isDigit(c) {
                text.unicodeScalars.append(c)
                i += 1
            }
        }
        if let e = peek(), e == "e" || e == "E" {
            var k = 1
            if let s = peek(1), s == "+" || s == "-" { k = 2 }
            if let d = peek(k), Lexer.isDigit(d) {
                isReal = true
                for _ in 0..<k {
                    text.unicodeScalars.append(peek()!)
                    i += 1
                }
                while let c = peek(), Lexer.isDigit(c) {
                    text.unicodeScalars.append(c)
                    i += 1
                }
            } else {
                throw error(i + k, expected: "exponent digits")
            }
        }
        if let c = peek(), Lexer.isWordPart(c) { throw error(i, expected: "an operator after the number") }
        if text.hasPrefix(".") { text = "0" + text }
        if !isReal {
            guard let v = Int64(text) else { throw error(start, expected: "an integer within 64 bits") }
            return Token(kind: .integer(v), offset: start)
        }
        guard let v = Double(text), v.isFinite else { throw error(start, expected: "a finite number") }
        return Token(kind: .real(v), offset: start)
    }

    private static func digitValue(_ c: Unicode.Scalar) -> Int? {
        switch c {
        case "0"..."9": return Int(c.value - 48)
        case "a"..."f": return Int(c.value - 97 + 10)
        case "A"..."F": return Int(c.value - 65 + 10)
        default: return nil
        }
    }

    /// A quoted string. Either quote style; the other quote needs no escape. Known escapes
    /// (`\\ \' \" \n \t \r \0 \xHH \uHHHH`) are decoded; any other backslash is kept, so a
    /// LIKE pattern `'a\*'` reaches LIKE as `a\*` (a literal star).
    private mutating func string(quote: Unicode.Scalar) throws(EngineError) -> Token {
        let start = i
        i += 1
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw error(scalars.count, expected: "a closing \(quote) for the string at offset \(start)")
            }
            i += 1
            if c == quote { break }
            guard c == "\\" else {
                out.append(c)
                continue
            }
            guard let e = peek() else {
                throw error(scalars.count, expected: "a closing \(quote) for the string at offset \(start)")
            }
            switch e {
            case "\\", "'", "\"":
                out.append(e)
                i += 1
            case "n":
                out.append("\n")
                i += 1
            case "t":
                out.append("\t")
                i += 1
            case "r":
                out.append("\r")
                i += 1
            case "0":
                out.append("\u{0}")
                i += 1
            case "x", "u":
                let width = e == "x" ? 2 : 4
                var v: UInt32 = 0
                for k in 1...width {
                    guard let h = peek(k), let d = Lexer.digitValue(h) else {
                        throw error(i + k, expected: "\(width) hexadecimal digits after \\\(e)")
                    }
                    v = v * 16 + UInt32(d)
                }
                guard let scalar = Unicode.Scalar(v) else { throw error(i - 1, expected: "a valid Unicode scalar") }
                out.append(scalar)
                i += width + 1
            default:
                out.append("\\")
            }
        }
        return Token(kind: .string(String(out)), offset: start)
    }
}
