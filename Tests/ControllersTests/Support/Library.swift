import Model

/// The oracle's model: books with an author (to-one, inverse `books`), and memos, which
/// keep everything in their own row (no relationship: a batch notes them as one run).
enum Library {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Author",
            attributes: [
                Attribute(name: "name", type: .string), Attribute(name: "rank", type: .integer),
            ], relationships: [Relationship(name: "books", destination: "Book", toMany: true, inverse: "author")]),
        Entity(
            name: "Book", attributes: shelfAttributes,
            relationships: [Relationship(name: "author", destination: "Author", toMany: false, inverse: "books")]),
        Entity(name: "Memo", attributes: shelfAttributes),
    ])

    /// What books and memos both have.
    static let shelfAttributes = [
        Attribute(name: "title", type: .string), Attribute(name: "price", type: .integer, optional: true),
        Attribute(name: "year", type: .integer), Attribute(name: "flag", type: .boolean),
        Attribute(name: "note", type: .string),
    ]

    static let titles = ["Alpha", "beta", "Gamma", "delta", "Émile", "zeta", "Eta", "Theta"]
    static let names = ["Ann", "Bob", "Cid", "Dee", "ann", "Zed"]
}
