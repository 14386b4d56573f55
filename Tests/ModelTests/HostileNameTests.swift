import Model
import Testing

/// Names the store could not hold safely are an `invalidModel` naming the offender: too long,
/// SQLite's own `sqlite_` prefix (for keys as well as entities), the store's `_` columns.
@Suite struct HostileNameTests {
    private func failure(entity: String = "Note", key: String = "title") -> (path: String, reason: String)? {
        validationFailure(
            ObjectModel(entities: [Entity(name: entity, attributes: [Attribute(name: key, type: .string)])]))
    }

    @Test func aMegabyteNameIsRejectedAndShownCut() {
        let huge = String(repeating: "a", count: 1 << 20)
        let entity = failure(entity: huge)
        #expect(entity?.path == "entities[0].name")
        #expect(entity?.reason == "name longer than 64 characters: " + String(repeating: "a", count: 64) + "...")
        let key = failure(key: huge)
        #expect(key?.path == "entities[0].attributes." + String(repeating: "a", count: 64) + "...")
    }

    @Test func theLimitIsSixtyFourCharacters() {
        #expect(failure(entity: "N" + String(repeating: "x", count: 63)) == nil)
        #expect(failure(key: "k" + String(repeating: "x", count: 64))?.reason.hasPrefix("name longer than 64") == true)
    }

    @Test(arguments: ["sqlite_master", "SQLITE_sequence", "sqlite_stat1"])
    func sqlitePrefixedKeysAreReserved(_ name: String) {
        #expect(failure(key: name)?.reason == "reserved name \(name)")
        #expect(failure(key: name)?.path == "entities[0].attributes.\(name)")
        #expect(failure(entity: "S" + name.dropFirst())?.reason == "reserved name S\(name.dropFirst())")
    }

    @Test(arguments: ["_pk", "_version", "_fetchd_metadata", "_fetchdNext", "_join_Note_tags"])
    func theStoresOwnNamesCannotBeKeysOrEntities(_ name: String) {
        #expect(failure(key: name)?.reason.hasPrefix("invalid name \(name)") == true)
        #expect(failure(entity: name)?.reason.hasPrefix("invalid name \(name)") == true)
    }
}
