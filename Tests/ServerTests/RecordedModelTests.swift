import JSON
import JSONRPC
import Model
import TestSupport
import Testing

@testable import Server

#if canImport(Glibc)
    import Glibc
#endif

/// The model a store records, read back in its wire form: what `fetchd query --store PATH`
/// opens an existing store with when no `--model` is given.
@Suite struct RecordedModelTests {
    static var contacts: JSON { get throws { try JSON.parse(Array(WireModelTests.contacts.utf8)) } }

    @Test func encodingThenDecodingGivesTheSameModel() throws {
        let model = try WireModel.decode(try Self.contacts)
        let encoded = WireModel.encode(model)
        #expect(try WireModel.decode(encoded) == model)
        let attributes = encoded["entities"]?.arrayValue?.first?["attributes"]
        #expect(attributes?.objectValue?.keys == ["name", "phone", "age", "born"])
        #expect(attributes?["born"]?["default"] == "2000-01-01T00:00:00.000Z")
    }

    @Test func aStoreFileGivesBackTheModelItWasOpenedWith() throws {
        let dir = TempDir()
        let server = Server()
        let path = dir.file("s.db")
        #expect((try? server.call("store/open", ["path": .string(path), "model": try Self.contacts]).get()) != nil)
        server.close()
        let recorded = try Server.recordedModel(path: path).get()
        #expect(try WireModel.decode(recorded) == WireModel.decode(try Self.contacts))
    }

    @Test func aFileThatIsNotAStoreIsAStoreError() throws {
        let dir = TempDir()
        let path = dir.file("empty.db")
        // An empty file is an empty SQLite database: no fetchd metadata.
        fclose(fopen(path, "w"))
        guard case .failure(let error) = Server.recordedModel(path: path) else {
            Issue.record("an empty file is not a store")
            return
        }
        #expect(error.data?["kind"] == "storeError")
        #expect(error.message.contains("not a fetchd store"))
    }
}
