import Model
import Postgres
import Testing

@testable import Predicates

/// The hard cases of predicates in PostgreSQL, each against a stated answer: PostgreSQL and
/// memory both select exactly the expected names (or the generator refuses). Needs the
/// cluster of `make test-postgres`.
@Suite(.serialized) struct PGPredicateTests {
    static let names: [String?] = [
        "Émile", "e\u{301}mile", "emile", "EMILE", "straße", "STRASSE", "ẞ", "ß", "ı", "I", "i", "İstanbul",
        "istanbul", "x*y", "x%y", "a_b", "a\\b", nil, "file2", "file10", "File02", "file1234567890",
        "file999999999", "file٣", "file²", "li\nne", "Zoë", "",
    ]

    let l: Library
    let pg: PGLibrary

    init() throws {
        l = try Library()
        for n in Self.names { try l.insert("Author", ["name": n.map(Value.string) ?? .null]) }
        pg = try PGLibrary(schema: "fetchd_pg_predicates")
        try pg.load(l)
    }

    /// The names both PostgreSQL and memory select (PostgreSQL must agree with memory).
    func names(_ predicate: String, _ variables: [String: Value] = [:]) throws -> Set<String?> {
        let compiled = try l.compiler.compile(
            FetchRequest(entity: "Author", predicate: predicate, variables: variables))
        let memory = l.memoryMatches(compiled)
        let postgres = try pg.matches(compiled)
        #expect(postgres == memory, "\(predicate)")
        return Set(memory.map { Self.names[Int($0) - 1] })
    }

    @Test func caseAndDiacriticFoldingBeyondASCII() throws {
        #expect(try names("name ==[c] 'émile'") == ["Émile"])
        #expect(try names("name ==[d] 'Emile'") == ["Émile"])
        #expect(try names("name ==[cd] 'EMILE'") == ["Émile", "e\u{301}mile", "emile", "EMILE"])
        #expect(try names("name == 'e\u{301}mile'") == ["e\u{301}mile"])
        #expect(try names("name ==[c] 'straße'") == ["straße"])
        #expect(try names("name ==[c] 'ß'") == ["ß", "ẞ"])
        #expect(try names("name ==[c] 'ss'").isEmpty)
        #expect(try names("name ==[c] 'i'") == ["I", "i"])
        #expect(try names("name ==[c] 'ı'") == ["ı"])
        #expect(try names("name BEGINSWITH[c] 'ist'") == ["istanbul"])
        #expect(try names("name BEGINSWITH[cd] 'ist'") == ["İstanbul", "istanbul"])
        #expect(try names("name ENDSWITH[cd] 'OE'") == ["Zoë"])
        #expect(try names("name CONTAINS[d] 'mil'") == ["Émile", "e\u{301}mile", "emile"])
        #expect(try names("name IN[c] {'ZOË', 'emile'}") == ["Zoë", "emile", "EMILE"])
        // Ordering by folded scalars: "émile" (U+00E9) sorts after every ASCII letter.
        #expect(try names("name >[c] 'zz'") == ["Émile", "ß", "ẞ", "ı"])
    }

    @Test func patternsThatAreKeys() throws {
        // The stored value is the pattern: folded in SQL, an empty one matches nothing.
        #expect(try names("'emile and more' BEGINSWITH[c] name") == ["emile", "EMILE"])
        #expect(try names("'a_b!' CONTAINS name") == ["a_b"])
        #expect(try names("'Bözoë' ENDSWITH[c] name") == ["Zoë"])
        // Stored LIKE patterns: `*` and `?` are wildcards, `%` literal, `\` escapes.
        #expect(try names("'xzzy' LIKE name") == ["x*y"])
        #expect(try names("'x%y' LIKE name") == ["x*y", "x%y"])
        #expect(try names("'ab' LIKE name") == ["a\\b"])
        #expect(try names("'' LIKE name") == [""])
        #expect(try names("'FILE2' LIKE[c] name") == ["file2"])
        for p in ["", "*", "a?b", "100%_x", #"x\*y\?"#, #"a\\b"#, #"end\"#, "**", "é*ß", #"\%\_"#] {
            let r = try pg.db.exec("SELECT fetchd_like_pattern($1)", [.text(p)])
            #expect(r.rows == [[PGPatterns.like(p)]], "\(p)")
        }
        let matches = try l.compiler.compile(FetchRequest(entity: "Author", predicate: "'abc' MATCHES name"))
        #expect(throws: PGUnsupported.self) { try pg.matches(matches) }
    }

    @Test func likeWildcardsAndEscapes() throws {
        #expect(try names(#"name LIKE 'x\*y'"#) == ["x*y"])
        #expect(try names("name LIKE 'x?y'") == ["x*y", "x%y"])
        #expect(try names("name LIKE 'x%y'") == ["x%y"])
        #expect(try names("name LIKE 'a_b'") == ["a_b"])
        #expect(try names(#"name LIKE '*\\\\*'"#) == ["a\\b"])
        #expect(try names("name LIKE[c] 'FILE?'") == ["file2", "file٣", "file²"])
        #expect(try names("name LIKE '*'") == Set(Self.names.filter { $0 != nil }))
        #expect(try names("name LIKE ''") == [""])
    }

    @Test func matchesInTheSharedDialect() throws {
        #expect(try names("name MATCHES 'file[0-9]+'") == ["file2", "file10", "file1234567890", "file999999999"])
        // Swift's \d is every scalar with a numeric type; `.` stops at line breaks.
        #expect(
            try names(#"name MATCHES 'file\\d+'"#) == [
                "file2", "file10", "file1234567890", "file999999999", "file٣", "file²",
            ])
        #expect(try names("name MATCHES '.*'") == Set(Self.names.filter { $0 != nil && $0 != "li\nne" }))
        #expect(try names("name MATCHES '[^a]*'").contains("li\nne"))
        #expect(try names("name MATCHES[d] 'emile'") == ["e\u{301}mile", "emile"])
        #expect(try names("name MATCHES ''") == [""])
        #expect(try names("name MATCHES[c] 'emile'") == ["emile", "EMILE"])
        #expect(try names("name MATCHES[cd] 'EMILE'") == ["Émile", "e\u{301}mile", "emile", "EMILE"])
        #expect(try names("name MATCHES[c] 'ß'") == ["ß", "ẞ"])
        #expect(try names("name MATCHES[c] 'str.*'") == ["straße", "STRASSE"])
        for refused in ["name MATCHES[c] '[a-z]+'", "name MATCHES '(?i)emile'", "name MATCHES 'a$'"] {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: refused))
            #expect(throws: PGUnsupported.self, "\(refused)") { try pg.matches(compiled) }
        }
    }

    /// Each translated pattern against subjects chosen to tell the dialects apart (line
    /// breaks for `.`, combining marks, non-ASCII digits, ranges beyond ASCII).
    @Test func translatedRegexesMatchAsSwiftDoes() throws {
        let patterns = [
            "(|a)b", "[à-é]+", "a{2,3}", "x{,2}", "[^\\d]+", "\\.", "a.c", "(?:ab|cd)*", "[a-c]?z", ".*\\d.*", "[^a]*",
            "é.*", ".", "file[0-9]+", "a*?b", "[\\-x]+", "(a|ab)(c|bcd)(d*)", "[\\d.]+", "\u{1F600}+", "[^\u{1F600}]",
        ]
        let subjects = [
            "", "a", "b", "ab", "aa", "aaa", "abab", "abcd", "\n", "\u{85}", "\u{2028}", "é", "e\u{301}", "ä", "x",
            "xx",
            "xxx", "٣", "²", "a.c", "a\nc", ".", "-x-", "file12", "z", "bz", "\u{1F600}\u{1F600}", "\u{1F600}", "1.5",
        ]
        try agree(patterns, subjects, caseInsensitive: false)
        // Case-insensitive: every scalar with the same lower-case mapping, and nothing more.
        try agree(
            ["k", "ß+", "σ", "İ", "emile", "[0-9]+x", ".s.", "(a|é)*", "Å", "ǅ", "i"],
            [
                "k", "K", "\u{212A}", "ß", "ẞß", "SS", "σ", "Σ", "ς", "İ", "i\u{307}", "i", "I", "ı", "EMILE", "Émile",
                "12X",
                "ſsS", "xSx", "aÉA", "å", "\u{212B}", "Ǆ", "ǆ", "ǅ",
            ], caseInsensitive: true)
    }

    private func agree(_ patterns: [String], _ subjects: [String], caseInsensitive: Bool) throws {
        for p in patterns {
            let translated = try PGPatterns.regex(p, caseInsensitive: caseInsensitive)
            let swift = try #require(
                TextPattern(.matches, options: caseInsensitive ? .caseInsensitive : [], pattern: p))
            for s in subjects {
                let r = try pg.db.exec("SELECT ($1::text COLLATE \"C\") ~ $2::text", [.text(s), .text(translated)])
                #expect((r.rows[0][0] == "t") == swift.matches(s), "\(p) on \(s.debugDescription)")
            }
        }
    }

    @Test func nilFollowsNSPredicateNotSQL() throws {
        let all = Set(Self.names)
        #expect(try names("name == nil") == [nil])
        #expect(try names("name != 'emile'") == all.subtracting(["emile"]))
        #expect(try names("NOT (name == 'emile')") == all.subtracting(["emile"]))
        #expect(try names("name <= nil") == [nil])
        #expect(try names("name < 'a'").contains(nil) == false)
        #expect(try names("name BEGINSWITH $p", ["p": .null]).isEmpty)
        #expect(try names("name BEGINSWITH ''").isEmpty)
        #expect(try names("name IN {nil, 'ß'}") == [nil, "ß"])
        #expect(try names("NOT (name IN {'ß'})") == all.subtracting(["ß"]))
    }

    @Test func localizedStandardCompareSortsDigitRunsByValue() throws {
        let compiled = try l.compiler.compile(
            FetchRequest(
                entity: "Author", predicate: "name BEGINSWITH[c] 'file'",
                sortDescriptors: [SortDescriptor(key: "name", comparator: .localizedStandardCompare)]))
        let order = try pg.order(compiled)
        #expect(order.ids == l.memoryOrder(compiled))
        let names = order.ids.map { Self.names[Int($0) - 1] }.filter { $0?.lowercased().hasPrefix("file") == true }
        #expect(names == ["file2", "File02", "file10", "file999999999", "file1234567890", "file²", "file٣"])
    }

    @Test func everyComparatorOrdersTheNamesAsMemoryDoes() throws {
        for comparator in Comparator.allCases {
            for ascending in [true, false] {
                let compiled = try l.compiler.compile(
                    FetchRequest(
                        entity: "Author",
                        sortDescriptors: [SortDescriptor(key: "name", ascending: ascending, comparator: comparator)]))
                let order = try pg.order(compiled)
                #expect(order.ids == l.memoryOrder(compiled), "\(comparator) ascending: \(ascending)")
            }
        }
        // caseInsensitiveCompare: "I" and "i" tie, as do "ẞ" and "ß" (ids decide); "ı" is not "i".
        let compiled = try l.compiler.compile(
            FetchRequest(
                entity: "Author", sortDescriptors: [SortDescriptor(key: "name", comparator: .caseInsensitiveCompare)]))
        let picked: Set<String?> = ["ẞ", "ß", "ı", "I", "i"]
        let names = try pg.order(compiled).ids.map { Self.names[Int($0) - 1] }.filter { picked.contains($0) }
        #expect(names == ["I", "i", "ẞ", "ß", "ı"])
    }

    @Test func textNeedingCanonicalReorderingIsRefusedNotMisfolded() throws {
        // U+1D16D (class 226) before U+1D165 (class 216): NFD reorders them, a scalar-by-scalar
        // fold would not, so PostgreSQL raises instead of answering differently.
        #expect(throws: PGError.self) {
            try pg.db.exec("SELECT fetchd_fold($1, FALSE, TRUE)", ["\u{1D16D}\u{1D165}"])
        }
        let inOrder = try pg.db.exec("SELECT fetchd_fold($1, FALSE, TRUE)", ["\u{1D165}\u{1D16D}é"])
        #expect(inOrder.rows == [["\u{1D165}\u{1D16D}e"]])
    }
}

/// Numbers in PostgreSQL: integers against doubles exactly, and sums past 64 bits.
@Suite(.serialized) struct PGNumberTests {
    @Test func integersAndDoublesCompareExactly() throws {
        let l = try Library()
        let big = try l.insert("Author", ["age": .integer(1 << 53 + 1), "rating": .double(0.1)])
        let max = try l.insert("Author", ["age": .integer(Int64.max), "rating": .double(9_007_199_254_740_992)])
        // PostgreSQL's own float8 -> numeric cast rounds this double to 123456789012346.
        try l.insert("Author", ["age": .integer(123_456_789_012_346)])
        for pages: Int64 in [Int64.max, 1] { try l.insert("Book", ["pages": .integer(pages), "author": .object(max)]) }
        try l.insert("Book", ["pages": .integer(3), "price": .double(0.1), "author": .object(big)])
        try l.insert("Book", ["pages": .integer(4), "price": .double(0.2), "author": .object(big)])
        let pg = try PGLibrary(schema: "fetchd_pg_numbers")
        try pg.load(l)
        func ids(_ predicate: String) throws -> [Int64] {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
            let postgres = try pg.matches(compiled)
            #expect(postgres == l.memoryMatches(compiled), "\(predicate)")
            return postgres
        }
        #expect(try ids("age == 9007199254740992.0") == [])
        #expect(try ids("age > 9007199254740992.0") == [1, 2])
        #expect(try ids("age < 9223372036854775807.0") == [1, 2, 3]) // the double is 2^63
        #expect(try ids("age > 123456789012345.67") == [1, 2, 3])
        #expect(try ids("age == 123456789012345.67") == [])
        #expect(try ids("age > rating") == [1, 2])
        #expect(try ids("rating == 0.1") == [1])
        #expect(try ids("rating > age") == [])
        // Int64.max + 1 overflows: memory adds the pages as ascending doubles (2^63).
        #expect(try ids("books.@sum.pages > 9223372036854775807") == [2])
        #expect(try ids("books.@sum.pages == 7") == [1])
        #expect(try ids("books.@sum.price == 0.30000000000000004") == [1])
        #expect(try ids("books.@avg.pages == 3.5") == [1])
        #expect(try ids("books.@avg.price == 0.15000000000000002") == [1])
        #expect(try ids("books.@sum.price == 0") == [2, 3])
    }

    /// `fetchd_exact` is the double's exact value across the whole range (PostgreSQL's own
    /// cast keeps 15 digits).
    @Test func exactValuesOfDoubles() throws {
        let pg = try PGLibrary(schema: "fetchd_pg_exact")
        let checks = [
            "fetchd_exact(5e-324) * (2::numeric ^ 1074) = 1",
            "fetchd_exact(2.2250738585072014e-308) * (2::numeric ^ 1022) = 1",
            "fetchd_exact(1.7976931348623157e308) = (2::numeric ^ 1024) - (2::numeric ^ 971)",
            "fetchd_exact(0.1) = 0.1000000000000000055511151231257827021181583404541015625",
            "fetchd_exact(-0.5) = -0.5", "fetchd_exact('-0'::float8) = 0",
            "fetchd_exact(9223372036854775807::float8) = 9223372036854775808",
        ]
        for check in checks {
            #expect(try pg.db.exec("SELECT \(check)").rows == [["t"]], "\(check)")
        }
    }
}
