import JSON
import Model
import Testing

@testable import Server

@Suite struct WireValueTests {
    let entity = Entity(
        name: "Thing",
        attributes: [
            Attribute(name: "s", type: .string), Attribute(name: "i", type: .integer),
            Attribute(name: "d", type: .double), Attribute(name: "b", type: .boolean),
            Attribute(name: "when", type: .date), Attribute(name: "blob", type: .binary),
            Attribute(name: "u", type: .uuid),
        ],
        relationships: [
            Relationship(name: "owner", destination: "Person", toMany: false, inverse: "things"),
            Relationship(name: "tags", destination: "Tag", toMany: true, inverse: "things"),
        ])

    @Test func roundTripsEveryType() throws {
        let wire: JSONObject = [
            "s": "héllo", "i": 42, "d": 1.5, "b": true, "when": "2024-05-01T12:30:00.250+02:00",
            "blob": "AAEC/w==", "u": "0E8A1B2C-3D4E-4F50-8162-738495A6B7C8",
            "owner": "Person/3", "tags": ["Tag/2", "Tag/1"],
        ]
        let values = try WireValue.snapshot(wire, for: entity)
        #expect(values["when"] == .date(1_714_559_400.25))
        #expect(values["blob"] == .binary([0, 1, 2, 255]))
        #expect(values["u"] == .uuid("0e8a1b2c-3d4e-4f50-8162-738495a6b7c8"))
        #expect(values["owner"] == .object(ObjectID(entity: "Person", number: 3)))
        let out = WireObject.json(ObjectID(entity: "Thing", number: 1), values, entity: entity)
        #expect(
            out
                == .object([
                    "id": "Thing/1", "s": "héllo", "i": 42, "d": 1.5, "b": true,
                    "when": "2024-05-01T10:30:00.250Z", "blob": "AAEC/w==",
                    "u": "0e8a1b2c-3d4e-4f50-8162-738495a6b7c8", "owner": "Person/3",
                    "tags": ["Tag/2", "Tag/1"],
                ]))
        let projected = WireObject.json(
            ObjectID(entity: "Thing", number: 1), values, entity: entity,
            keys: try WireObject.projection(["u", "s"], entity: entity))
        #expect(projected.objectValue?.keys == ["id", "s", "u"])
        #expect(throws: EngineError.self) { _ = try WireObject.projection(["nope"], entity: entity) }
    }

    @Test func integralNumbersAreIntegersAndIntegersAreDoubles() throws {
        #expect(try WireValue.value(.double(3), as: .integer) == .integer(3))
        #expect(try WireValue.value(.integer(3), as: .double) == .double(3))
        #expect(throws: EngineError.self) { _ = try WireValue.value(.double(3.5), as: .integer) }
    }

    private func error(_ wire: JSONObject) -> EngineError? {
        do {
            _ = try WireValue.snapshot(wire, for: entity)
            return nil
        } catch { return error }
    }

    @Test func badValuesNameEntityAndKey() {
        let mismatch = error(["i": "seven"])
        #expect(mismatch?.kind == .typeMismatch)
        #expect(mismatch?.detail("entity") == .string("Thing"))
        #expect(mismatch?.detail("key") == .string("i"))
        #expect(mismatch?.detail("got") == .string("string"))
        #expect(error(["when": "yesterday"])?.kind == .invalidValue)
        #expect(error(["when": "yesterday"])?.detail("key") == .string("when"))
        #expect(error(["blob": "not base64!"])?.kind == .invalidValue)
        #expect(error(["u": "1234"])?.kind == .invalidValue)
        #expect(error(["owner": "Person"])?.kind == .invalidValue)
        #expect(error(["owner": 3])?.kind == .typeMismatch)
        #expect(error(["tags": "Tag/1"])?.kind == .typeMismatch)
        let unknown = error(["colour": "red"])
        #expect(unknown?.kind == .unknownKey)
        #expect(unknown?.detail("key") == .string("colour"))
        #expect(error(["s": .null]) == nil)
    }

    @Test func base64() {
        for n in 0..<20 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 255) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.decode("Zm8") == nil)
        #expect(Base64.decode("Z=8=") == nil)
    }
}
