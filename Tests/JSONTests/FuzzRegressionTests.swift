import Foundation
import JSON
import Testing

/// Replays Fuzz/Regressions/FuzzJSON through the fuzz target's check: what parses serializes
/// to text that parses back to the same bytes; what does not parse is an error, not a crash.
@Suite struct JSONFuzzRegressionTests {
    static let directory = #filePath.components(separatedBy: "/Tests/")[0] + "/Fuzz/Regressions/FuzzJSON"
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func thereAreRegressionInputs() { #expect(!Self.files.isEmpty) }

    @Test(arguments: files)
    func parsesToAStableSerializationOrFails(_ file: String) throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + file)))
        guard let value = try? JSON.parse(data) else { return }
        let text = value.serialized
        #expect(try JSON.parse(text).serialized == text)
    }
}
