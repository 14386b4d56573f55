import Model

@testable import Predicates

/// A small fixed library for the evaluation tests (ids in comments).
enum Sample {
    static let uuid = "6f9619ff-8b86-d011-b42d-00c04fc964ff"

    static func library() throws -> Library {
        let l = try Library()
        let a1 = try l.insert(
            "Author",
            [
                "name": .string("Ana"), "age": .integer(30), "rating": .double(4.5), "active": .bool(true),
                "born": .date(ISO8601.parse("1990-01-01")!),
            ])
        let a2 = try l.insert(
            "Author",
            [
                "name": .string("ana"), "age": .integer(25), "active": .bool(false),
                "born": .date(ISO8601.parse("2000-06-15")!),
            ])
        let a3 = try l.insert("Author", ["name": .string("Émile"), "rating": .double(3.0), "mentor": .object(a1)])
        let a4 = try l.insert(
            "Author",
            [
                "age": .integer(40), "rating": .double(2.5), "active": .bool(true),
                "born": .date(ISO8601.parse("1985-03-03")!), "mentor": .object(a2),
            ])
        let a5 = try l.insert(
            "Author",
            [
                "name": .string("Zoë"), "age": .integer(30), "rating": .double(5.0), "active": .bool(false),
                "code": .uuid(uuid), "mentor": .object(a3), "photo": .binary([1, 2, 3]),
            ])
        try l.insert(
            "Book",
            ["title": .string("Swift Basics"), "pages": .integer(120), "price": .double(9.5), "author": .object(a1)])
        try l.insert(
            "Book",
            ["title": .string("Advanced Swift"), "pages": .integer(300), "price": .double(30), "author": .object(a1)])
        try l.insert("Book", ["title": .string("Cooking"), "pages": .integer(80), "author": .object(a2)])
        try l.insert("Book", ["title": .string("file10"), "pages": .integer(10), "author": .object(a5)])
        try l.insert(
            "Book", ["title": .string("file2"), "pages": .integer(20), "price": .double(1), "author": .object(a5)])
        let work = try l.insert("Tag", ["name": .string("work")])
        let home = try l.insert("Tag", ["name": .string("home")])
        try l.tag(a1, work)
        try l.tag(a2, work)
        try l.tag(a2, home)
        try l.tag(a4, home)
        return l
    }
}
