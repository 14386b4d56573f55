import Foundation
import TestSupport

/// A store file in a scratch directory, filled through `fetchd exec`, for the subcommands' tests.
final class CLIStore {
    let dir = TempDir()
    var path: String { dir.file("contacts.db") }
    var modelPath: String { dir.file("model.json") }

    static let model = #"""
        {"entities": [{"name": "Contact", "attributes": {"name": {"type": "string"},
          "age": {"type": "integer", "default": 0}, "city": {"type": "string", "optional": true}}}]}
        """#

    /// Ana 31 "Lyon, FR", Bob "B" 25 (no city), Zoë 40 Oslo: ids Contact/1...3, saved.
    static let seed = [
        insert(#"{"name":"Ana","age":31,"city":"Lyon, FR"}"#, id: 1),
        insert(#"{"name":"Bob \"B\"","age":25}"#, id: 2),
        insert(#"{"name":"Zoë","age":40,"city":"Oslo"}"#, id: 3),
        request(4, "context/save", #"{"context":"main"}"#),
    ]

    /// One NDJSON request line (no newline).
    static func request(_ id: Int, _ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    static func insert(_ values: String, id: Int) -> String {
        request(id, "context/insert", #"{"context":"main","entity":"Contact","values":\#(values)}"#)
    }

    static func update(_ object: String, _ values: String, id: Int) -> String {
        request(id, "context/update", #"{"context":"main","id":"\#(object)","values":\#(values)}"#)
    }

    init() throws {
        try Self.model.write(toFile: modelPath, atomically: true, encoding: .utf8)
        let seeded = try FetchdProcess.run(
            ["exec", "-", "--store", path, "--model", modelPath],
            input: Self.seed.joined(separator: "\n") + "\n")
        guard seeded.status == 0 else { throw SeedFailed(stderr: seeded.stderr) }
    }

    struct SeedFailed: Error { let stderr: String }
}
