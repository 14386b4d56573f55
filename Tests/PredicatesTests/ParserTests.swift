import Model
import Testing

@testable import Predicates

private func parse(_ s: String) throws -> PredicateSyntaxTree { try PredicateParser.parse(s) }

private func key(_ parts: String..., at offset: Int) -> ExpressionSyntax {
    .keyPath(KeyPathSyntax(root: .object, components: parts, offset: offset))
}

private func comparison(_ p: PredicateSyntaxTree) -> ComparisonSyntax? {
    if case .comparison(let c) = p { return c } else { return nil }
}

@Suite struct ParserTests {
    @Test func everyComparisonOperatorSpelling() throws {
        let cases: [(String, ComparisonOperator)] = [
            ("=", .equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less),
            ("<=", .lessOrEqual), ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual),
            ("=>", .greaterOrEqual), ("BEGINSWITH", .beginsWith), ("endswith", .endsWith),
            ("Contains", .contains), ("LIKE", .like), ("matches", .matches), ("IN", .in),
        ]
        for (spelling, op) in cases {
            let c = try #require(comparison(try parse("a \(spelling) 'x'")))
            #expect(c.op == op, "\(spelling)")
            #expect(c.lhs == key("a", at: 0))
            #expect(c.rhs == .literal(.string("x"), offset: 3 + spelling.unicodeScalars.count))
            #expect(c.offset == 2)
        }
    }

    @Test func literals() throws {
        let cases: [(String, LiteralSyntax)] = [
            ("'single'", .string("single")), ("\"double\"", .string("double")),
            ("\"Al's\"", .string("Al's")), ("'say \"hi\"'", .string("say \"hi\"")),
            ("'a\\'b'", .string("a'b")), ("'t\\tn\\n\\\\'", .string("t\tn\n\\")),
            ("'\\u00e9\\x41'", .string("éA")), ("'a\\*'", .string("a\\*")),
            ("42", .integer(42)), ("-7", .integer(-7)), ("0x1F", .integer(31)), ("0o17", .integer(15)),
            ("0b101", .integer(5)), ("2.5", .real(2.5)), ("9.2e-5", .real(9.2e-5)), ("1E3", .real(1000)),
            ("-0.5", .real(-0.5)), (".5", .real(0.5)),
            ("TRUE", .bool(true)), ("yes", .bool(true)), ("False", .bool(false)), ("NO", .bool(false)),
            ("NULL", .null), ("nil", .null),
        ]
        for (text, literal) in cases {
            let c = try #require(comparison(try parse("x == \(text)")))
            #expect(c.rhs == .literal(literal, offset: 5), "\(text)")
        }
    }

    @Test func keyPathsVariablesSelfAndLists() throws {
        let c1 = try #require(comparison(try parse("author.name == $who")))
        #expect(c1.lhs == key("author", "name", at: 0))
        #expect(c1.rhs == .keyPath(KeyPathSyntax(root: .variable("who"), components: [], offset: 15)))
        let c2 = try #require(comparison(try parse("SELF IN $ids")))
        #expect(c2.lhs == .keyPath(KeyPathSyntax(root: .selfObject, components: [], offset: 0)))
        let c3 = try #require(comparison(try parse("books.@count > 2")))
        #expect(c3.lhs == key("books", "@count", at: 0))
        let c4 = try #require(comparison(try parse("books.@sum.pages >= 100")))
        #expect(c4.lhs == key("books", "@sum", "pages", at: 0))
        let c5 = try #require(comparison(try parse("age IN {1, 2, 3}")))
        #expect(
            c5.rhs
                == .list(
                    [
                        .literal(.integer(1), offset: 8), .literal(.integer(2), offset: 11),
                        .literal(.integer(3), offset: 14),
                    ], offset: 7))
        let c6 = try #require(comparison(try parse("age BETWEEN {1, 10}")))
        #expect(c6.op == .between)
        let c8 = try #require(comparison(try parse("x IN {}")))
        #expect(c8.rhs == .list([], offset: 5))
    }

    @Test func reservedWordsNeedAFollowingBreak() throws {
        guard case .and(let terms) = try parse("#and == 1 AND ANDROID == 2 AND ORDER == 3") else {
            Issue.record("not an AND")
            return
        }
        #expect(
            terms.compactMap(comparison).map(\.lhs) == [
                key("and", at: 0), key("ANDROID", at: 14), key("ORDER", at: 31),
            ])
    }

    @Test func quantifiersAndOptions() throws {
        let cases: [(String, Quantifier)] = [("ANY", .anyOf), ("some", .anyOf), ("ALL", .allOf), ("NONE", .noneOf)]
        for (word, q) in cases {
            let c = try #require(comparison(try parse("\(word) tags.name ==[cd] 'x'")))
            #expect(c.quantifier == q)
            #expect(c.options == [.caseInsensitive, .diacriticInsensitive])
        }
        let options: [(String, ComparisonOptions)] = [
            ("[c]", [.caseInsensitive]), ("[d]", [.diacriticInsensitive]),
            ("[cd]", [.caseInsensitive, .diacriticInsensitive]),
            ("[dc]", [.caseInsensitive, .diacriticInsensitive]), ("[n]", [.normalized]),
            ("[cdn]", [.caseInsensitive, .diacriticInsensitive, .normalized]), ("", []),
        ]
        for (text, expected) in options {
            #expect(comparison(try parse("name BEGINSWITH\(text) 'a'"))?.options == expected, "\(text)")
        }
    }

    @Test func precedenceIsNotThenAndThenOr() throws {
        let a = PredicateSyntaxTree.comparison(
            ComparisonSyntax(
                quantifier: nil, lhs: key("a", at: 0), op: .equal, options: [],
                rhs: .literal(.integer(1), offset: 5), offset: 2))
        let tree = try parse("a == 1 OR b == 2 AND NOT c == 3")
        guard case .or(let ors) = tree, ors.count == 2, ors[0] == a, case .and(let ands) = ors[1], ands.count == 2,
            case .not(.comparison(let c)) = ands[1]
        else {
            Issue.record("wrong shape: \(tree)")
            return
        }
        #expect(c.lhs == key("c", at: 25))
        let tree2 = try parse("(a == 1 || b == 2) && !(c == 3)")
        guard case .and(let t2) = tree2, case .or = t2[0], case .not(.comparison) = t2[1] else {
            Issue.record("wrong shape: \(tree2)")
            return
        }
        #expect(try parse("NOT a == 1 AND b == 2").shape == "&(!(a==1),b==2)")
        #expect(try parse("TRUEPREDICATE OR falsepredicate") == .or([.constant(true), .constant(false)]))
        #expect(try parse("a == 1 and b == 2 or c == 3").shape == "|(&(a==1,b==2),c==3)")
    }

    @Test func subquery() throws {
        let c = try #require(
            comparison(try parse("SUBQUERY(books, $b, $b.pages > 100 AND $b.title BEGINSWITH 'A').@count >= 1")))
        guard case .keyPath(let path) = c.lhs, case .subquery(let collection, let variable, let inner) = path.root
        else {
            Issue.record("not a subquery")
            return
        }
        #expect(collection == KeyPathSyntax(root: .object, components: ["books"], offset: 9))
        #expect(variable == "b")
        #expect(path.components == ["@count"])
        guard case .and(let terms) = inner, terms.count == 2 else {
            Issue.record("inner")
            return
        }
    }

    @Test func whitespaceIsInsignificant() throws {
        #expect(try parse("  a==1&&b!=2  ").shape == (try parse("a == 1 AND b != 2")).shape)
    }

    /// (predicate, offset, a fragment of `expected`)
    static let malformed: [(String, Int, String)] = [
        ("", 0, "a predicate"),
        ("   ", 3, "a predicate"),
        ("()", 1, "key path"),
        ("age", 3, "comparison operator"),
        ("age ==", 6, "key path"),
        ("== 3", 0, "key path"),
        ("age === 3", 6, "key path"),
        (",", 0, "key path"),
        ("age == 3 AND", 12, "key path"),
        ("age == 3 OR OR b == 1", 12, "key path"),
        ("age == 3 b == 1", 9, "AND, OR"),
        ("(age == 3", 9, "')'"),
        ("age == 3)", 8, "AND, OR"),
        ("name == 'abc", 12, "closing '"),
        ("name == \"abc", 12, "closing \""),
        ("age == 3 & b == 1", 9, "'&&'"),
        ("age == 3 | b == 1", 9, "'||'"),
        ("name == %@", 8, "$variable"),
        ("%K == 1", 0, "$variable"),
        ("age NOT IN {1, 2}", 4, "comparison operator"),
        ("age IN {1, 2", 12, "',' or '}'"),
        ("age IN {1 2}", 10, "',' or '}'"),
        ("age IN {1,}", 10, "key path"),
        ("name ==[x] 'a'", 8, "options c, d or n"),
        ("name ==[cx] 'a'", 8, "options c, d or n"),
        ("name ==[C] 'a'", 8, "options c, d or n"),
        ("name ==[c 'a'", 10, "']'"),
        ("name ==[] 'a'", 8, "options c, d or n"),
        ("age == 0x", 9, "hexadecimal digits"),
        ("age == 0b2", 9, "binary digits"),
        ("age == 0o9", 9, "octal digits"),
        ("age == 12abc", 9, "operator after the number"),
        ("age == 1e", 9, "exponent digits"),
        ("age == 99999999999999999999", 7, "64 bits"),
        ("age == - 'a'", 9, "number after '-'"),
        ("age == $", 8, "variable name"),
        ("a.@ == 1", 3, "collection operator"),
        ("a. == 1", 3, "key after '.'"),
        ("# == 1", 1, "identifier after '#'"),
        ("SUBQUERY(books, b, b.x == 1).@count > 0", 16, "$variable"),
        ("SUBQUERY(books $b, $b.x == 1).@count > 0", 15, "','"),
        ("SUBQUERY(books, $b, $b.x == 1.@count > 0", 29, "')' closing SUBQUERY"),
        ("SUBQUERY books", 9, "'('"),
        ("ANY", 3, "key path"),
        ("NOT", 3, "key path"),
        ("name == 'a' ^ b", 12, "operator or parenthesis"),
        ("name == 'a' ; DROP TABLE x", 12, "operator or parenthesis"),
        ("name == '\\u00zz'", 13, "hexadecimal"),
        ("a == 1 AND ()", 12, "key path"),
        ("name BETWEEN", 12, "key path"),
        ("TRUEPREDICATE == 1", 14, "AND, OR"),
        ("a ?= 1", 2, "literal, operator"),
    ]

    @Test(arguments: malformed) func malformedPredicateReportsWhere(
        _ predicate: String, _ offset: Int, _ expected: String
    ) {
        do {
            _ = try PredicateParser.parse(predicate)
            Issue.record("parsed: \(predicate)")
        } catch {
            #expect(error.kind == .predicateSyntax)
            #expect(error.detail("predicate") == .string(predicate))
            #expect(error.detail("offset") == .int(Int64(offset)), "\(predicate): \(error.message)")
            guard case .string(let e)? = error.detail("expected") else {
                Issue.record("no expected")
                return
            }
            #expect(e.contains(expected), "\(predicate): \(e)")
        }
    }

    @Test func atLeastFortyMalformedCases() { #expect(Self.malformed.count >= 40) }

    @Test func deepNestingIsAnErrorNotACrash() {
        for opener in ["(", "NOT ", "!", "{"] {
            let deep = String(repeating: opener, count: 10_000) + "a == 1"
            #expect(throws: EngineError.self) { try PredicateParser.parse(deep) }
        }
        let ok = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
        #expect(throws: Never.self) { try PredicateParser.parse(ok) }
    }

    @Test func longFlatChainsParse() throws {
        let many = (0..<5000).map { "a == \($0)" }.joined(separator: " OR ")
        guard case .or(let terms) = try parse(many) else {
            Issue.record("not OR")
            return
        }
        #expect(terms.count == 5000)
    }
}

extension PredicateSyntaxTree {
    /// Test helper: the tree without offsets, so differently spaced sources compare equal.
    fileprivate var shape: String {
        switch self {
        case .constant(let b): return "\(b)"
        case .not(let p): return "!(\(p.shape))"
        case .and(let ps): return "&(" + ps.map(\.shape).joined(separator: ",") + ")"
        case .or(let ps): return "|(" + ps.map(\.shape).joined(separator: ",") + ")"
        case .comparison(let c):
            return
                "\(c.quantifier?.rawValue ?? "")\(c.lhs.shape)\(c.op.rawValue)\(c.options.isEmpty ? "" : "[\(c.options.rawValue)]")\(c.rhs.shape)"
        }
    }
}

extension ExpressionSyntax {
    fileprivate var shape: String {
        switch self {
        case .literal(let l, _):
            switch l {
            case .integer(let v): return "\(v)"
            default: return "\(l)"
            }
        case .keyPath(let k): return k.text
        case .list(let items, _): return "{" + items.map(\.shape).joined(separator: ",") + "}"
        }
    }
}
