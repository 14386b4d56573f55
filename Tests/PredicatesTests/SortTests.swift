import Model
import Testing

@testable import Predicates

@Suite struct SortTests {
    private func order(_ l: Library, _ sort: [SortDescriptor], section: String? = nil, entity: String = "Author") throws
        -> [Int64]
    {
        let compiled = try l.compiler.compile(
            FetchRequest(entity: entity, sortDescriptors: sort), sectionNameKeyPath: section)
        let sql = try l.sqlOrder(compiled)
        #expect(sql.ids == l.memoryOrder(compiled), "SQL and memory order differ for \(sort)")
        for (n, id) in sql.ids.enumerated() {
            let oid = ObjectID(entity: entity, number: id)
            #expect(
                sql.keys[n] == compiled.ordering.key(of: oid, l.objects[oid]!, in: l),
                "key(fromColumns:) != key(of:) for \(oid)")
        }
        return sql.ids
    }

    private func names(_ names: [String?]) throws -> Library {
        let l = try Library()
        for n in names { try l.insert("Author", ["name": n.map(Value.string) ?? .null]) }
        return l
    }

    @Test func compareIsScalarOrderWithNilFirst() throws {
        let l = try names(["b", "B", nil, "a", "é", "file10", "file2", "A"])
        #expect(try order(l, [SortDescriptor(key: "name")]) == [3, 8, 2, 4, 1, 6, 7, 5])
        #expect(try order(l, [SortDescriptor(key: "name", ascending: false)]) == [5, 7, 6, 1, 4, 2, 8, 3])
    }

    @Test func caseInsensitiveCompare() throws {
        let l = try names(["b", "B", nil, "a", "É", "é", "A"])
        // Ties (a/A, b/B, É/é) fall back to the id.
        #expect(
            try order(l, [SortDescriptor(key: "name", comparator: .caseInsensitiveCompare)]) == [3, 4, 7, 1, 2, 5, 6])
    }

    @Test func localizedStandardCompare() throws {
        let l = try names(["file10", "File2", "file1", "éclair", "Eclair", "zeta", nil, "file02b", "file2a"])
        let got = try order(l, [SortDescriptor(key: "name", comparator: .localizedStandardCompare)])
        #expect(
            got == [7, 4, 5, 3, 2, 9, 8, 1, 6],
            "\(got.map { l.objects[ObjectID(entity: "Author", number: $0)]!["name"]! })")
    }

    @Test func numbersDatesBooleansAndKeyPaths() throws {
        let l = try Sample.library()
        #expect(try order(l, [SortDescriptor(key: "age")]) == [3, 2, 1, 5, 4])
        #expect(
            try order(l, [SortDescriptor(key: "age", ascending: false), SortDescriptor(key: "rating")]) == [
                4, 1, 5, 2, 3,
            ])
        #expect(try order(l, [SortDescriptor(key: "born")]) == [3, 5, 4, 1, 2])
        #expect(
            try order(l, [SortDescriptor(key: "active"), SortDescriptor(key: "name", ascending: false)]) == [
                3, 2, 5, 1, 4,
            ])
        #expect(
            try order(l, [SortDescriptor(key: "mentor.name", comparator: .caseInsensitiveCompare)]) == [1, 2, 3, 4, 5])
        #expect(try order(l, [SortDescriptor(key: "mentor")]) == [1, 2, 3, 4, 5])
        #expect(
            try order(l, [SortDescriptor(key: "author.name"), SortDescriptor(key: "pages")], entity: "Book") == [
                1, 2, 4, 5, 3,
            ])
        #expect(try order(l, [SortDescriptor(key: "code"), SortDescriptor(key: "photo")]) == [1, 2, 3, 4, 5])
    }

    @Test func sectionKeyPathComesFirst() throws {
        let l = try Sample.library()
        let c = try l.compiler.compile(
            FetchRequest(entity: "Author", sortDescriptors: [SortDescriptor(key: "name")]), sectionNameKeyPath: "active"
        )
        #expect(try l.sqlOrder(c).ids == [3, 5, 2, 4, 1])
        #expect(l.memoryOrder(c) == [3, 5, 2, 4, 1])
        // Already first: not added twice, and its direction is kept.
        let d = try l.compiler.compile(
            FetchRequest(entity: "Author", sortDescriptors: [SortDescriptor(key: "active", ascending: false)]),
            sectionNameKeyPath: "active")
        #expect(d.ordering.keyColumns(alias: "t").count == 1)
        #expect(try l.sqlOrder(d).ids == [1, 4, 2, 5, 3])
        let key = d.ordering.key(
            of: ObjectID(entity: "Author", number: 1), l.objects[ObjectID(entity: "Author", number: 1)]!, in: l)
        #expect(key == [.bool(true)])
    }
}
