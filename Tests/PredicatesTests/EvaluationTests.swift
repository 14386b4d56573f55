import Model
import Testing

@testable import Predicates

/// Each operator and option on a small library, with the expected matches; every case runs
/// as SQL and in memory, and both must give exactly the expected ids.
@Suite struct EvaluationTests {
    static let cases: [(String, [Int64])] = [
        // Equality and null semantics
        ("name == 'Ana'", [1]), ("name = 'Ana'", [1]), ("name != 'Ana'", [2, 3, 4, 5]),
        ("name <> 'Ana'", [2, 3, 4, 5]),
        ("name == nil", [4]), ("name == NULL", [4]), ("name != nil", [1, 2, 3, 5]),
        ("NOT name == 'Ana'", [2, 3, 4, 5]),
        ("name ==[c] 'ANA'", [1, 2]), ("name ==[d] 'Emile'", [3]), ("name ==[cd] 'emile'", [3]),
        ("name == 'Emile'", []),
        ("name !=[c] 'ana'", [3, 4, 5]),
        // Ordering on numbers, doubles, strings
        ("age > 25", [1, 4, 5]), ("age >= 30", [1, 4, 5]), ("age => 30", [1, 4, 5]), ("age < 30", [2]),
        ("age <= 30", [1, 2, 5]),
        ("age =< 25", [2]), ("age == 30", [1, 5]), ("age != 30", [2, 3, 4]), ("30 < age", [4]),
        ("age > 29.5", [1, 4, 5]),
        ("age == 30.0", [1, 5]), ("age < nil", []), ("age <= nil", [3]), ("age >= NULL", [3]),
        ("NOT age > 25", [2, 3]),
        ("rating > 3", [1, 5]), ("rating == 3", [3]), ("rating < 4.5", [3, 4]), ("rating >= -1e3", [1, 3, 4, 5]),
        ("name < 'B'", [1]), ("name > 'a'", [2, 3]), ("name >[c] 'b'", [3, 5]), ("name <[cd] 'f'", [1, 2, 3]),
        // Radix literals
        ("age == 0x1E", [1, 5]), ("age == 0o31", [2]), ("age == 0b101000", [4]),
        // BETWEEN and IN
        ("age BETWEEN {25, 30}", [1, 2, 5]), ("age BETWEEN {31, 100}", [4]), ("name BETWEEN {'A', 'Z'}", [1]),
        ("name BETWEEN[c] {'a', 'b'}", [1, 2]), ("NOT age BETWEEN {25, 30}", [3, 4]),
        ("age IN {25, 40}", [2, 4]), ("NOT (age IN {25, 40})", [1, 3, 5]), ("age IN {}", []),
        ("name IN {'Ana', nil}", [1, 4]),
        ("name IN[c] {'ANA', 'zoë'}", [1, 2, 5]), ("'mil' IN name", [3]), ("{25, 40} CONTAINS age", [2, 4]),
        // String operators
        ("name BEGINSWITH 'A'", [1]), ("name BEGINSWITH[c] 'a'", [1, 2]), ("name BEGINSWITH ''", []),
        ("name ENDSWITH ''", []),
        ("name CONTAINS ''", []), ("name ENDSWITH 'ë'", [5]), ("name ENDSWITH[d] 'e'", [3, 5]),
        ("name CONTAINS 'mil'", [3]),
        ("name CONTAINS[cd] 'EM'", [3]), ("name CONTAINS[n] 'n'", [1, 2]), ("NOT name CONTAINS 'n'", [3, 4, 5]),
        ("name LIKE 'A*'", [1]), ("name LIKE[c] 'a?a'", [1, 2]), ("name LIKE '*o*'", [5]), ("name LIKE 'Z?ë'", [5]),
        ("name LIKE '*'", [1, 2, 3, 5]), ("name LIKE 'An'", []), ("name LIKE[cd] 'e*'", [3]), ("name LIKE '%'", []),
        ("name MATCHES '[A-Z].*'", [1, 5]), ("name MATCHES[c] 'ana'", [1, 2]), ("name MATCHES 'n'", []),
        ("name MATCHES '.*n.*'", [1, 2]),
        ("name MATCHES[d] 'Emile'", [3]),
        // Booleans
        ("active == YES", [1, 4]), ("active == TRUE", [1, 4]), ("active == NO", [2, 5]), ("active = false", [2, 5]),
        ("active != YES", [2, 3, 5]), ("active == 1", [1, 4]), ("active == nil", [3]),
        // Dates
        ("born > '1995-01-01'", [2]), ("born BETWEEN {'1980-01-01', '1990-01-01T00:00:00Z'}", [1, 4]),
        ("born < '1990-01-01T01:00:00+02:00'", [4]), ("born < '1990-01-01T03:00:00+02:00'", [1, 4]),
        ("born == nil", [3, 5]),
        // UUID, binary, SELF
        ("code == '6F9619FF-8B86-D011-B42D-00C04FC964FF'", [5]), ("code != nil", [5]), ("photo != nil", [5]),
        ("SELF == 'Author/2'", [2]), ("SELF != 'Author/2'", [1, 3, 4, 5]),
        // To-one key paths
        ("mentor.name == 'Ana'", [3]), ("mentor.name == nil", [1, 2]), ("mentor.name != 'Ana'", [1, 2, 4, 5]),
        ("mentor.mentor.name == 'Ana'", [5]), ("mentor == nil", [1, 2]), ("mentor == 'Author/1'", [3]),
        ("mentor.age > 26", [3]),
        ("mentor.mentor.mentor == nil", [1, 2, 3, 4, 5]), ("mentor.mentor.mentor.name == 'Ana'", []),
        // To-many: quantifiers, membership, collection operators
        ("ANY books.pages > 200", [1]), ("SOME books.pages > 200", [1]), ("ALL books.pages > 50", [1, 2, 3, 4]),
        ("NONE books.pages > 100", [2, 3, 4, 5]), ("ANY books.title BEGINSWITH[c] 'FILE'", [5]),
        ("ANY books.price == nil", [2, 5]),
        ("ALL books.price > 0", [1, 3, 4]), ("ANY books.pages BETWEEN {100, 200}", [1]),
        ("ANY books.pages IN {80, 10}", [2, 5]),
        ("books.@count == 2", [1, 5]), ("books.@count == 0", [3, 4]), ("books.@sum.pages > 100", [1]),
        ("books.@sum.pages == 0", [3, 4]), ("books.@avg.pages == 15", [5]), ("books.@max.pages < 100", [2, 5]),
        ("books.@min.title == 'file10'", [5]), ("books.@avg.price > 5", [1]), ("books.@sum.price == 0", [2, 3, 4]),
        ("SUBQUERY(books, $b, $b.pages > 100).@count >= 1", [1]),
        ("SUBQUERY(books, $b, $b.title BEGINSWITH 'file' AND $b.pages < 15).@count == 1", [5]),
        ("SUBQUERY(books, $b, $b.pages > age).@count > 0", [1, 2]),
        ("ANY tags.name == 'work'", [1, 2]), ("'home' IN tags.name", [2, 4]), ("tags.name CONTAINS 'home'", [2, 4]),
        ("tags.@count > 1", [2]), ("NONE tags.name == 'work'", [3, 4, 5]), ("ALL tags.name == 'home'", [3, 4, 5]),
        ("ANY mentees.name == 'Émile'", [1]), ("mentees.@count == 0", [4, 5]), ("ANY mentor.books.pages > 100", [3]),
        ("ANY mentor.tags.name == 'work'", [3, 4]),
        // Compounds
        ("age > 26 AND name BEGINSWITH 'A' OR name == nil", [1, 4]),
        ("age > 26 && (name == 'Zoë' || name == nil)", [4, 5]),
        ("!(age > 26) AND NOT name == nil", [2, 3]), ("TRUEPREDICATE", [1, 2, 3, 4, 5]), ("FALSEPREDICATE", []),
        ("truepredicate AND name == 'Ana'", [1]), ("name == 'x' OR FALSEPREDICATE", []),
    ]

    @Test(arguments: cases) func matchesTheSameInSQLAndMemory(_ predicate: String, _ expected: [Int64]) throws {
        let l = try Sample.library()
        let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
        #expect(try l.sqlMatches(compiled) == expected, "SQL: \(predicate)")
        #expect(l.memoryMatches(compiled) == expected, "memory: \(predicate)")
    }

    @Test func variablesAreTypedByWhatTheyMeet() throws {
        let l = try Sample.library()
        let cases: [(String, [String: Value], [String: [Value]], [Int64])] = [
            ("age > $min", ["min": .integer(26)], [:], [1, 4, 5]),
            ("born < $when", ["when": .string("1990-01-02")], [:], [1, 4]),
            ("name IN $names", [:], ["names": [.string("Ana"), .string("Zoë")]], [1, 5]),
            ("age BETWEEN $range", [:], ["range": [.integer(26), .integer(35)]], [1, 5]),
            (
                "SELF IN $ids",
                ["ids": .objects([ObjectID(entity: "Author", number: 2), ObjectID(entity: "Author", number: 4)])], [:],
                [2, 4]
            ),
            ("mentor == $m", ["m": .string("Author/2")], [:], [4]),
            ("name LIKE $p", ["p": .string("a\\*")], [:], []),
            ("name ==[c] $n AND active == $a", ["n": .string("ANA"), "a": .bool(false)], [:], [2]),
            ("code == $c", ["c": .string(Sample.uuid.uppercased())], [:], [5]),
            ("name == $nothing", ["nothing": .null], [:], [4]),
        ]
        for (predicate, variables, lists, expected) in cases {
            let compiled = try l.compiler.compile(
                FetchRequest(entity: "Author", predicate: predicate, variables: variables, listVariables: lists))
            #expect(try l.sqlMatches(compiled) == expected, "SQL: \(predicate)")
            #expect(l.memoryMatches(compiled) == expected, "memory: \(predicate)")
        }
    }

    @Test func likeEscapesAndLiteralMetacharacters() throws {
        let l = try Library()
        for name in ["a*", "ab", "a%", "a_b", "a.b", "a\\b", "[a]"] { try l.insert("Author", ["name": .string(name)]) }
        let cases: [(String, [Int64])] = [
            ("name LIKE 'a\\\\*'", [1]), ("name LIKE 'a%'", [3]), ("name LIKE 'a_b'", [4]),
            ("name LIKE 'a?b'", [4, 5, 6]),
            ("name LIKE '[a]'", [7]), ("name LIKE 'a*'", [1, 2, 3, 4, 5, 6]), ("name LIKE '*b'", [2, 4, 5, 6]),
        ]
        for (predicate, expected) in cases {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
            #expect(try l.sqlMatches(compiled) == expected, "SQL: \(predicate)")
            #expect(l.memoryMatches(compiled) == expected, "memory: \(predicate)")
        }
    }

    @Test func valuesCannotInjectSQL() throws {
        let l = try Sample.library()
        for predicate in [
            "name == \"x' OR 1=1 --\"", "name == 'Robert\"); DROP TABLE \"Author\"; --'", "name LIKE \"*' OR '1'='1\"",
        ] {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
            #expect(!compiled.filter.sql(alias: "t").text.contains("DROP"))
            #expect(try l.sqlMatches(compiled) == [])
        }
        #expect(try l.sqlMatches(try l.compiler.compile(FetchRequest(entity: "Author"))) == [1, 2, 3, 4, 5])
    }

    @Test func relationshipPathsListWhatIsRead() throws {
        let l = try Sample.library()
        let c = try l.compiler.compile(
            FetchRequest(
                entity: "Author", predicate: "mentor.mentor.name == 'x' OR ANY books.pages > 1 OR tags.@count > 0",
                sortDescriptors: [SortDescriptor(key: "mentor.name")]))
        #expect(c.filter.relationshipPaths == [["books"], ["mentor"], ["mentor", "mentor"], ["tags"]])
        #expect(c.ordering.relationshipPaths == [["mentor"]])
    }

    @Test func hugeFlatDisjunctionStaysWithinSQLiteLimits() throws {
        let l = try Sample.library()
        let predicate = (0..<3000).map { "age == \($0)" }.joined(separator: " OR ")
        let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
        #expect(try l.sqlMatches(compiled) == [1, 2, 4, 5])
        #expect(l.memoryMatches(compiled) == [1, 2, 4, 5])
    }
}
