import Model
import Testing

@testable import Predicates

@Suite struct CompileErrorTests {
    private func error(
        _ predicate: String?, entity: String = "Author", variables: [String: Value] = [:],
        sort: [SortDescriptor] = [], section: String? = nil
    ) -> EngineError? {
        do {
            _ = try RequestCompiler(model: Library.model).compile(
                FetchRequest(entity: entity, predicate: predicate, variables: variables, sortDescriptors: sort),
                sectionNameKeyPath: section)
            return nil
        } catch { return error }
    }

    @Test func unknownKeysNameEntityAndKey() {
        let cases: [(String, String, String)] = [
            ("nope == 1", "Author", "nope"), ("mentor.nope == 1", "Author", "nope"),
            ("ANY books.nope == 1", "Book", "nope"),
            ("name.length == 1", "Author", "length"), ("books.@sum.nope > 1", "Book", "nope"),
            ("books.@median.pages > 1", "Book", "@median"),
            ("SUBQUERY(books, $b, $b.nope == 1).@count > 0", "Book", "nope"),
            ("\"name\" == 'x' OR x == 2", "Author", "x"),
        ]
        for (predicate, entity, key) in cases {
            let e = error(predicate)
            #expect(e?.kind == .unknownKey, "\(predicate)")
            #expect(e?.detail("entity") == .string(entity), "\(predicate)")
            #expect(e?.detail("key") == .string(key), "\(predicate)")
        }
        #expect(error(nil, sort: [SortDescriptor(key: "mentor.bogus")])?.detail("key") == .string("bogus"))
        #expect(error(nil, section: "bogus")?.kind == .unknownKey)
    }

    @Test func typeMismatches() {
        for predicate in [
            "age BEGINSWITH 3", "name > TRUE", "name == 3", "age == 'x'", "age LIKE 'a*'", "active CONTAINS 'x'",
            "books.title == 'x'", "ANY name == 'x'", "ALL mentor.name == 'x'", "age BETWEEN {1}",
            "age BETWEEN {1, 2, 3}",
            "age BETWEEN 3", "age IN 3", "mentor > 'Author/1'", "mentor == 'Book/1'", "SELF == 'Tag/1'", "born == 3",
            "name == {1, 2}", "books.@sum.title > 1", "books.@count == 'x'", "@count > 1", "age.@count > 1",
            "SUBQUERY(name, $x, $x == 1).@count > 0", "books == nil", "$v.name == 1",
        ] {
            let e = error(predicate, variables: ["v": .integer(1)])
            #expect(e?.kind == .typeMismatch, "\(predicate): \(String(describing: e))")
        }
        #expect(error(nil, sort: [SortDescriptor(key: "books")])?.kind == .typeMismatch)
        let e = error("name > TRUE")
        #expect(e?.detail("entity") == .string("Author"))
        #expect(e?.detail("key") == .string("name"))
        #expect(e?.detail("expected") == .string("string"))
        #expect(e?.detail("got") == .string("boolean"))
    }

    @Test func invalidValuesAndMissingThings() {
        #expect(error("born > 'yesterday'")?.kind == .invalidValue)
        #expect(error("code == 'not-a-uuid'")?.kind == .invalidValue)
        #expect(error("name MATCHES '('")?.kind == .invalidValue)
        #expect(error("'a' MATCHES '('")?.kind == .invalidValue)
        let missing = error("age > $limit")
        #expect(missing?.kind == .missingVariable)
        #expect(missing?.detail("variable") == .string("limit"))
        #expect(error("age > 1", entity: "Nope")?.kind == .unknownEntity)
        #expect(error("SUBQUERY(books, $b, $b.pages > 1) > 0")?.kind == .predicateSyntax)
        #expect(error("age >")?.kind == .predicateSyntax)
    }

    @Test func compilationIsCachedPerRequest() throws {
        let compiler = RequestCompiler(model: Library.model)
        let r = FetchRequest(entity: "Author", predicate: "age > $a", variables: ["a": .integer(1)])
        let first = try compiler.compile(r)
        let again = try compiler.compile(r)
        #expect(first.filter as? CompiledFilter != nil)
        // The same compiled filter comes back (its bound tree is shared, not rebuilt).
        #expect(first.filter.sql(alias: "t") == again.filter.sql(alias: "t"))
        var other = r
        other.variables["a"] = .integer(2)
        #expect(try compiler.compile(other).filter.sql(alias: "t").bindings == [.integer(2)])
    }
}

@Suite struct CanonicalEquivalenceTests {
    /// `é` and `e` + U+0301 are equal Swift Strings but different text to SQL and to
    /// predicates; caches must not confuse them.
    @Test func cachesKeepNormalizationFormsApart() throws {
        let l = try Library()
        try l.insert("Author", ["name": .string("é")])
        try l.insert("Author", ["name": .string("e\u{301}")])
        for (predicate, expected) in [
            ("name ENDSWITH 'é'", [Int64(1)]), ("name ENDSWITH 'e\u{301}'", [2]),
            ("name == 'é'", [1]), ("name == 'e\u{301}'", [2]), ("name LIKE 'é'", [1]),
            ("name LIKE 'e\u{301}'", [2]), ("name ==[d] 'é'", [1, 2]),
        ] {
            let compiled = try l.compiler.compile(FetchRequest(entity: "Author", predicate: predicate))
            #expect(try l.sqlMatches(compiled) == expected, "SQL \(predicate.unicodeScalars.map(\.value))")
            #expect(l.memoryMatches(compiled) == expected, "memory \(predicate.unicodeScalars.map(\.value))")
        }
        for (value, expected) in [("é", [Int64(1)]), ("e\u{301}", [2])] {
            let compiled = try l.compiler.compile(
                FetchRequest(entity: "Author", predicate: "name == $n", variables: ["n": .string(value)]))
            #expect(try l.sqlMatches(compiled) == expected)
            #expect(l.memoryMatches(compiled) == expected)
        }
    }
}
