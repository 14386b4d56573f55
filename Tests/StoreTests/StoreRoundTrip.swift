import Model
import Testing

@testable import Store

/// What every store must do the same with `Models.contacts`, whichever database is behind it
/// (StoreTests on SQLite, PGStoreTests on PostgreSQL).
enum StoreRoundTrip {
    static let c1 = ObjectID(entity: "Contact", number: 1)
    static let g1 = ObjectID(entity: "Group", number: 1)
    static let t1 = ObjectID(entity: "Tag", number: 1)

    /// A fresh store's first ids, then Ana in Friends tagged vip, saved as one batch.
    static func seed(_ store: any Store, author: String? = nil) throws {
        #expect(try store.reserveID(for: "Group") == g1)
        #expect(try store.reserveID(for: "Tag") == t1)
        #expect(try store.reserveID(for: "Contact") == c1)
        try store.write(
            StoreBatch(
                inserts: [
                    (
                        c1,
                        [
                            "name": .string("Ana"), "age": .integer(30), "photo": .binary([1, 2]), "group": .object(g1),
                            "tags": .objects([t1]),
                        ]
                    ),
                    (g1, ["title": .string("Friends")]),
                    (t1, ["label": .string("vip")]),
                ], author: author))
    }

    /// Seeds `store`, then reads, updates (version up, both sides of each relationship
    /// follow) and deletes Ana.
    static func writesAndReadsObjectsWithRelationships(_ store: any Store) throws {
        try seed(store)
        let c = try #require(try store.read(c1))
        #expect(c.version == 1)
        #expect(
            c.values == [
                "name": .string("Ana"), "age": .integer(30), "photo": .binary([1, 2]),
                "group": .object(g1), "tags": .objects([t1]),
            ])
        #expect(try store.read(g1)?.values["members"] == .objects([c1]))
        #expect(try store.read(t1)?.values["contacts"] == .objects([c1]))
        #expect(try store.relatedIDs(of: t1, "contacts") == [c1])
        try store.write(
            StoreBatch(updates: [
                (
                    c1,
                    [
                        "name": .string("Ana B"), "age": .integer(31), "photo": .null,
                        "group": .null, "tags": .objects([]),
                    ]
                )
            ]))
        let updated = try #require(try store.read(c1))
        #expect(updated.version == 2)
        #expect(try store.version(of: c1) == 2)
        #expect(updated.values["name"] == .string("Ana B"))
        #expect(updated.values["photo"] == .null)
        #expect(try store.read(g1)?.values["members"] == .objects([]))
        #expect(try store.read(t1)?.values["contacts"] == .objects([]))
        try store.write(StoreBatch(deletes: [c1]))
        #expect(try store.read(c1) == nil)
        #expect(try store.version(of: c1) == nil)
    }
}
