import Foundation
import Testing

/// Closing stdin with unsaved changes still exits 0, but each context with some is named in
/// one warning at the default log level (protocol.md §2).
@Suite struct UnsavedChangesAtExitTests {
    static let open =
        #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"model":{"entities":[{"name":"Note","attributes":{"title":{"type":"string"}}}]}}}"#

    static func insert(_ id: Int, _ context: String, _ title: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"context/insert","params":{"context":"\#(context)","entity":"Note","values":{"title":"\#(title)"}}}"#
    }

    @Test func endOfInputWarnsOncePerContextWithUnsavedChanges() throws {
        let lines = [
            Self.open,
            Self.insert(2, "main", "a"), Self.insert(3, "main", "b"),
            #"{"jsonrpc":"2.0","id":4,"method":"context/create","params":{"name":"side"}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"context/create","params":{"name":"clean"}}"#,
            Self.insert(6, "side", "c"),
        ]
        let r = try FetchdProcess.run(input: lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0)
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("unsaved changes") }
        #expect(warnings.count == 2, "\(r.stderr)")
        #expect(warnings.first?.contains("context main: 2 inserted, 0 updated, 0 deleted") == true)
        #expect(warnings.last?.contains("context side: 1 inserted, 0 updated, 0 deleted") == true)
        #expect(warnings.allSatisfy { $0.contains("warning") })
    }

    @Test func savedChangesGiveNoWarning() throws {
        let lines = [
            Self.open, Self.insert(2, "main", "a"),
            #"{"jsonrpc":"2.0","id":3,"method":"context/save","params":{"context":"main"}}"#,
        ]
        let r = try FetchdProcess.run(input: lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0)
        #expect(!r.stderr.contains("unsaved changes"), "\(r.stderr)")
    }
}
