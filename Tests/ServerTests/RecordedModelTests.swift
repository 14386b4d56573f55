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

    /// `store/open` without `model` opens an existing store with the model it records.
    @Test func storeOpenWithoutAModelUsesTheRecordedOne() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        let first = Server()
        _ = try first.call("store/open", ["path": .string(path), "model": try Self.contacts]).get()
        _ = try first.call(
            "context/insert", ["context": "main", "entity": "Contact", "values": ["name": "Ana", "age": 30]]
        ).get()
        _ = try first.call("context/save", ["context": "main"]).get()
        first.close()
        let again = Server()
        defer { again.close() }
        let opened = try again.call("store/open", ["path": .string(path)]).get()
        #expect(opened == ["entities": ["Contact", "Group"], "migrated": false])
        let fetched = try again.call("context/fetch", ["context": "main", "request": ["entity": "Contact"]]).get()
        #expect(fetched["objects"]?.arrayValue?.first?["name"] == "Ana")
    }

    /// A store that does not exist yet needs a model: the missing param is named and no file
    /// is made; a file that is no fetchd store says so in the same way.
    @Test func storeOpenWithoutAModelNeedsAnExistingStore() throws {
        let dir = TempDir()
        let server = Server()
        defer { server.close() }
        let missing = dir.file("new.db")
        for params: JSON in [["path": .string(missing)], [:]] {
            guard case .failure(let error) = server.call("store/open", params) else {
                Issue.record("a new store opened without a model: \(params)")
                continue
            }
            #expect(error.code == -32602)
            #expect(error.data?["param"] == "model")
            #expect(error.data?["got"] == "missing")
            #expect(error.data?["expected"]?.stringValue?.contains("a new store needs one") == true)
        }
        #expect(access(missing, F_OK) != 0, "the refused open made a file")
        let plain = dir.file("plain.db")
        fclose(fopen(plain, "w"))
        guard case .failure(let error) = server.call("store/open", ["path": .string(plain)]) else {
            Issue.record("a file that is no store opened without a model")
            return
        }
        #expect(error.data?["param"] == "model")
        #expect(error.data?["expected"]?.stringValue?.contains("not a fetchd store") == true)
    }
}
