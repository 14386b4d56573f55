import JSON
import JSONRPC
import Model
import Testing

@testable import Controllers
@testable import Server

/// `controller/didChangeObject` writes its own bytes (names and objects encoded once per
/// cycle): they must be those of its JSON value, whatever the names and values hold.
@Suite struct ObjectChangeEncodingTests {
    static let names = ["c1", "", "a \"quoted\" name", "back\\slash", "tab\there\nnewline", "Zoë ☃ 𝄞", "\u{01}\u{1F}"]
    static let objects: [JSON?] = [
        nil, ["id": "Item/7"],
        [
            "id": "Item/7", "title": "he said \"hi\"\n", "n": -9_223_372_036_854_775_808, "x": 0.1, "ok": true,
            "none": nil,
        ],
        ["id": "Item/7", "tags": ["a", 1, [2.5, false]], "nested": ["k": "v\u{7}"]],
    ]
    static let paths: [IndexPath?] = [nil, IndexPath(section: 0, row: 0), IndexPath(section: 3, row: 123_456)]

    @Test(arguments: ["Item", "It\"em\\/\u{1}é"])
    func writesTheBytesOfItsValue(entity: String) {
        let ids = [
            ObjectID(entity: entity, number: 42), ObjectID(entity: entity, number: -7),
            ObjectID(entity: "Other", number: 0),
        ]
        for name in Self.names {
            let label = ControllerLabel(name: name, entity: entity)
            for object in Self.objects {
                for type in [ControllerEvent.ObjectChange.insert, .delete, .move, .update] {
                    for ((old, new), id) in zip(zip(Self.paths, Self.paths.reversed()), ids) {
                        let change = ObjectChange(
                            controller: label, type: type, id: id, indexPath: old, newIndexPath: new,
                            object: object.map(EncodedObject.init))
                        var writer = JSONWriter()
                        change.write(to: &writer)
                        #expect(writer.bytes == change.json.serialized, "\(name) \(type) \(String(describing: object))")
                    }
                }
            }
        }
    }

    /// `controller/willChangeContent` and `didChangeContent` write their own bytes too.
    @Test func aControllerNameWritesTheBytesOfItsValue() {
        for name in Self.names {
            let params = ControllerName(controller: name)
            var writer = JSONWriter()
            params.write(to: &writer)
            #expect(writer.bytes == params.json.serialized, "\(name)")
        }
    }

    /// A stored object written without its tree has the bytes and the value of its tree:
    /// every type, names that need escapes, values left out, and projections.
    @Test func aStoredObjectIsWrittenAsItsValue() {
        // Every type (WireValueTests' entity), a name that needs escapes, a value left out.
        var entity = WireValueTests().entity
        entity.name = "It\"em"
        entity.attributes += [
            Attribute(name: "tab\there \"q\"", type: .string), Attribute(name: "missing", type: .string),
        ]
        entity.relationships.append(Relationship(name: "none", destination: "Tag", toMany: true, inverse: "others"))
        let values: Snapshot = [
            "s": .string("he said \"hi\"\n\u{1}é"), "i": .integer(.min), "d": .double(0.1), "b": .bool(false),
            "when": .date(1_700_000_000.123), "blob": .binary([0, 255, 7]),
            "u": .uuid("0e3f9c4e-6b1a-4c1d-9d2e-2f4a5b6c7d8e"), "tab\there \"q\"": .null,
            "owner": .object(ObjectID(entity: "Person", number: 3)),
            "tags": .objects([ObjectID(entity: "Tag", number: 1), ObjectID(entity: "Tag", number: 2)]),
        ]
        let id = ObjectID(entity: entity.name, number: 42)
        for keys: Set<String>? in [nil, [], ["s"], ["tags", "i", "missing", "none"], ["tab\there \"q\""]] {
            let direct = EncodedObject(id, values, entity: entity, keys: keys)
            let tree = EncodedObject(WireObject.json(id, values, entity: entity, keys: keys))
            #expect(direct.member == tree.member, "\(String(describing: keys))")
            #expect(direct.json == tree.json)
        }
    }

    @Test func aNotificationWritesItsParamsEitherWay() {
        let change = ObjectChange(
            controller: ControllerLabel(name: "c", entity: "Item"), type: .update,
            id: ObjectID(entity: "Item", number: 1),
            indexPath: IndexPath(section: 0, row: 1), newIndexPath: IndexPath(section: 0, row: 2),
            object: EncodedObject(["id": "Item/1", "v": 3]))
        let encoded = ControllerNotifications.didChangeObject.message(change)
        let plain = OutgoingNotification(method: encoded.method, params: change.json)
        #expect(encoded == plain)
        #expect(encoded.params == change.json)
        let bytes = { (n: OutgoingNotification) -> [UInt8] in
            var w = JSONWriter()
            w.write(Outgoing.notification(n))
            return w.bytes
        }
        #expect(bytes(encoded) == bytes(plain))
    }
}
