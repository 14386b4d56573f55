import Model

@testable import Predicates

/// Random libraries and random predicates over the whole grammar, for the agreement test.
enum RandomLibrary {
    /// Text that exercises case, diacritics (precomposed and combining), digits, wildcard
    /// and quote characters, empty strings and scalars beyond the BMP.
    static let fragments = [
        "", "a", "A", "ab", "Ab", "AB", "é", "É", "e\u{301}", "E", "file2", "file10", "File02", "zoë",
        "Zoe", "x*y", "a?b", "ß", "SS", "日本", "\u{1F600}", "O'Brien", "%_", "\\", "Ana", "ana", "Émile",
        "1", "01", "9", " ", "z", "ı", "İ", "ẞ", "\u{212A}",
    ]
    static let dates = [
        "1970-01-01", "1999-12-31T23:59:59.999Z", "2000-01-01", "2024-02-29T12:00:00Z", "1969-07-20T20:17:00Z",
    ]
    static let uuids = [
        "6f9619ff-8b86-d011-b42d-00c04fc964ff", "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ]
    static let integers: [Int64] = [-5, -1, 0, 1, 2, 3, 5, 10, 100, 1 << 53, -(1 << 53), Int64.max, Int64.min + 1]
    static let doubles: [Double] = [-2.5, -1, -0.0, 0, 0.1, 0.5, 1, 1.5, 2, 2.5, 3, 1e15, 9.3e18, -9.3e18]

    static func string(_ r: inout RandomSource) -> String {
        (0..<r.int(0...3)).map { _ in r.pick(fragments) }.joined()
    }

    static func library(_ r: inout RandomSource) throws -> Library {
        let l = try Library()
        var tags: [ObjectID] = []
        for _ in 0..<r.int(1...4) {
            tags.append(try l.insert("Tag", ["name": r.chance(0.15) ? .null : .string(string(&r))]))
        }
        var authors: [ObjectID] = []
        for _ in 0..<r.int(0...14) {
            var v: [String: Value] = [:]
            v["name"] = r.chance(0.15) ? .null : .string(string(&r))
            v["age"] = r.chance(0.15) ? .null : .integer(r.pick(integers))
            v["rating"] = r.chance(0.15) ? .null : .double(r.pick(doubles))
            v["active"] = r.chance(0.2) ? .null : .bool(r.chance(0.5))
            v["born"] = r.chance(0.2) ? .null : .date(ISO8601.parse(r.pick(dates))!)
            v["code"] = r.chance(0.5) ? .null : .uuid(r.pick(uuids))
            v["photo"] = r.chance(0.5) ? .null : .binary(r.pick([[], [0], [1, 2], [255]]))
            if !authors.isEmpty, r.chance(0.6) { v["mentor"] = .object(r.pick(authors)) }
            let a = try l.insert("Author", v)
            authors.append(a)
            for t in tags where r.chance(0.4) { try l.tag(a, t) }
            for _ in 0..<r.int(0...3) {
                try l.insert(
                    "Book",
                    [
                        "title": r.chance(0.15) ? .null : .string(string(&r)),
                        "pages": r.chance(0.15) ? .null : .integer(r.pick(integers.filter { abs($0) < 1000 })),
                        "price": r.chance(0.2) ? .null : .double(r.pick(doubles)),
                        "author": .object(a),
                    ])
            }
        }
        return l
    }

    // MARK: Predicates

    static func quoted(_ s: String) -> String {
        var out = "'"
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "'"
    }

    enum Kind { case text, integer, double, boolean, date, uuid, object }

    static let authorKeys: [(String, Kind)] = [
        ("name", .text), ("age", .integer), ("rating", .double), ("active", .boolean), ("born", .date), ("code", .uuid),
        ("mentor.name", .text), ("mentor.age", .integer), ("mentor.mentor.name", .text), ("mentor.rating", .double),
        ("mentor.born", .date), ("mentor", .object), ("SELF", .object),
    ]
    static let bookKeys: [(String, Kind)] = [("title", .text), ("pages", .integer), ("price", .double)]

    static func literal(_ kind: Kind, _ r: inout RandomSource) -> String {
        if r.chance(0.08) { return r.pick(["nil", "NULL"]) }
        if r.chance(0.1) {
            // The same value as a request variable: typed by what it meets, as a literal is.
            let name = "v\(r.variables.count)"
            r.variables[name] = variableValue(kind, &r)
            return "$" + name
        }
        switch kind {
        case .text: return quoted(r.chance(0.7) ? r.pick(fragments) : string(&r))
        case .integer:
            if r.chance(0.15) { return String(r.pick(doubles.filter { $0 != 0 || $0.sign == .plus })) }
            if r.chance(0.1) { return r.pick(["0x1F", "0b11", "0o7", "-0x5"]) }
            return String(r.pick(integers))
        case .double: return r.chance(0.3) ? String(r.pick(integers)) : String(r.pick(doubles))
        case .boolean: return r.pick(["YES", "NO", "TRUE", "FALSE", "true", "no", "1", "0"])
        case .date: return quoted(r.pick(dates))
        case .uuid: return quoted(r.chance(0.5) ? r.pick(uuids).uppercased() : r.pick(uuids))
        case .object: return quoted("Author/\(r.int(1...6))")
        }
    }

    static func variableValue(_ kind: Kind, _ r: inout RandomSource) -> Value {
        if r.chance(0.08) { return .null }
        switch kind {
        case .text: return .string(r.pick(fragments))
        case .integer: return .integer(r.pick(integers))
        case .double: return r.chance(0.3) ? .integer(r.pick(integers)) : .double(r.pick(doubles))
        case .boolean: return r.chance(0.8) ? .bool(r.chance(0.5)) : .integer(Int64(r.int(0...1)))
        case .date: return .string(r.pick(dates))
        case .uuid: return .string(r.pick(uuids))
        case .object: return .string("Author/\(r.int(1...6))")
        }
    }

    static func options(_ r: inout RandomSource) -> String {
        r.pick(["", "", "[c]", "[d]", "[cd]", "[dc]", "[n]", "[cdn]"])
    }

    static func stringOperation(_ r: inout RandomSource) -> String {
        let op = r.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"])
        let pattern: String
        switch op {
        case "LIKE":
            pattern = (0..<r.int(0...3)).map { _ in r.pick(["*", "?", r.pick(fragments), "a", "\\*", "\\?"]) }.joined()
        case "MATCHES":
            pattern = r.pick([
                ".*", "[a-z]+", "a.*", "A|a", "é.*", "file[0-9]+", ".", "", "e\u{301}", "(?i)ana", ".*\\d.*", "[^a]*",
                "[à-é]+", "(a|é)*", "a{1,2}", "\\.*", "[^\\d]*",
            ])
        default:
            pattern = r.chance(0.8) ? r.pick(fragments) : string(&r)
        }
        return "\(op)\(options(&r)) \(quoted(pattern))"
    }

    /// One comparison on a key of the given kind (the key text given).
    static func comparison(
        _ key: String, _ kind: Kind, _ r: inout RandomSource, peers: [(String, Kind)],
        keyFirst: Bool = false
    ) -> String {
        if kind == .text, r.chance(0.35) { return "\(key) \(stringOperation(&r))" }
        let roll = r.int(0...9)
        if roll == 0 && kind != .object {
            return "\(key) BETWEEN\(kind == .text ? options(&r) : "") {\(literal(kind, &r)), \(literal(kind, &r))}"
        }
        if roll == 1 && r.chance(0.3) {
            let name = "l\(r.listVariables.count)"
            r.listVariables[name] = (0..<r.int(0...3)).map { _ in variableValue(kind, &r) }
            return "\(key) IN\(kind == .text ? options(&r) : "") $\(name)"
        }
        if roll == 1 {
            let items = (0..<r.int(0...3)).map { _ in literal(kind, &r) }.joined(separator: ", ")
            return "\(key) IN\(kind == .text ? options(&r) : "") {\(items)}"
        }
        let ops =
            kind == .object ? ["==", "!=", "=", "<>"] : ["==", "!=", "<", "<=", ">", ">=", "=<", "=>", "=", "<>"]
        let op = r.pick(ops) + (kind == .text ? options(&r) : "")
        if roll == 2, let peer = peers.filter({ compatible($0.1, kind) && $0.0 != key }).randomElement(using: &r) {
            return "\(key) \(op) \(peer.0)"
        }
        if roll == 3 && kind != .object && !keyFirst { return "\(literal(kind, &r)) \(op) \(key)" }
        return "\(key) \(op) \(literal(kind, &r))"
    }

    static func compatible(_ a: Kind, _ b: Kind) -> Bool {
        let numeric: Set<String> = ["integer", "double", "boolean"]
        return a == b || (numeric.contains("\(a)") && numeric.contains("\(b)"))
    }

    static func bookPredicate(_ prefix: String, _ r: inout RandomSource, depth: Int) -> String {
        if depth > 0, r.chance(0.3) {
            return
                "(\(bookPredicate(prefix, &r, depth: depth - 1)) \(r.pick(["AND", "OR"])) \(bookPredicate(prefix, &r, depth: depth - 1)))"
        }
        let (key, kind) = r.pick(bookKeys)
        return comparison(prefix + key, kind, &r, peers: bookKeys.map { (prefix + $0.0, $0.1) })
    }

    static func collectionPredicate(_ r: inout RandomSource) -> String {
        switch r.int(0...9) {
        case 0, 1:
            let (key, kind) = r.pick(bookKeys)
            return
                "\(r.pick(["ANY", "SOME", "ALL", "NONE"])) books.\(comparison(key, kind, &r, peers: [], keyFirst: true))"
        case 2:
            return
                "\(r.pick(["ANY", "ALL", "NONE"])) tags.name \(r.chance(0.5) ? stringOperation(&r) : "==\(options(&r)) \(literal(.text, &r))")"
        case 3: return "\(literal(.text, &r)) IN\(options(&r)) tags.name"
        case 4: return "tags.name CONTAINS\(options(&r)) \(literal(.text, &r))"
        case 5:
            let target = r.pick(["books", "tags", "mentees", "mentor.books"])
            return "\(target).@count \(r.pick(["==", "!=", "<", ">", ">=", "<="])) \(r.int(0...3))"
        case 6:
            let agg = r.pick([
                "@sum.pages", "@avg.pages", "@sum.price", "@avg.price", "@min.pages", "@max.pages", "@min.price",
                "@max.price",
            ])
            return "books.\(agg) \(r.pick(["==", "!=", "<", ">", ">=", "<="])) \(literal(.double, &r))"
        case 7:
            return
                "books.\(r.pick(["@min.title", "@max.title"])) \(r.pick(["==", "<", ">="]))\(options(&r)) \(literal(.text, &r))"
        case 8:
            return
                "SUBQUERY(books, $b, \(bookPredicate("$b.", &r, depth: 1))).@count \(r.pick(["==", ">", ">=", "<"])) \(r.int(0...2))"
        default:
            let (key, kind) = r.pick(bookKeys)
            return
                "\(r.pick(["ANY", "ALL", "NONE"])) mentor.books.\(comparison(key, kind, &r, peers: [], keyFirst: true))"
        }
    }

    static func predicate(_ r: inout RandomSource, depth: Int) -> String {
        if depth > 0 {
            switch r.int(0...9) {
            case 0, 1:
                return
                    "\(predicate(&r, depth: depth - 1)) \(r.pick(["AND", "&&", "and"])) \(predicate(&r, depth: depth - 1))"
            case 2, 3:
                return
                    "\(predicate(&r, depth: depth - 1)) \(r.pick(["OR", "||", "or"])) \(predicate(&r, depth: depth - 1))"
            case 4: return "\(r.pick(["NOT", "!", "not"])) (\(predicate(&r, depth: depth - 1)))"
            case 5: return "(\(predicate(&r, depth: depth - 1)))"
            default: break
            }
        }
        if r.chance(0.03) { return r.pick(["TRUEPREDICATE", "FALSEPREDICATE"]) }
        if r.chance(0.3) { return collectionPredicate(&r) }
        let (key, kind) = r.pick(authorKeys)
        return comparison(key, kind, &r, peers: authorKeys)
    }

    static func sortDescriptors(_ r: inout RandomSource) -> [SortDescriptor] {
        let keys = [
            "name", "age", "rating", "active", "born", "code", "photo", "mentor.name", "mentor.age", "mentor",
            "mentor.mentor.name",
        ]
        return (0..<r.int(1...3)).map { _ in
            SortDescriptor(key: r.pick(keys), ascending: r.chance(0.5), comparator: r.pick(Comparator.allCases))
        }
    }
}
