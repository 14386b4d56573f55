import Foundation
import JSONRPC
import Testing

/// Replays Fuzz/Regressions/FuzzFraming (inputs that once broke the framing property, kept
/// for good) through the same check as the fuzz target: the events must not depend on how the
/// bytes are split into reads. The first byte picks the mode and limit, as in FuzzFraming.
@Suite struct FuzzRegressionTests {
    static let directory = #filePath.components(separatedBy: "/Tests/")[0] + "/Fuzz/Regressions/FuzzFraming"
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func thereAreRegressionInputs() { #expect(!Self.files.isEmpty) }

    @Test(arguments: files)
    func framingEventsDoNotDependOnTheReads(_ file: String) throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + file)))
        guard let control = data.first else { return }
        let bytes = Array(data.dropFirst())
        let mode: FramingMode = [.auto, .ndjson, .lsp][Int(control % 3)]
        let limit = control & 0x80 != 0 ? 64 : FramingLimits.defaultMaxMessageSize
        let whole = decode([bytes], mode: mode, limit: limit).events
        #expect(!whole.isEmpty)
        #expect(decode(bytes.map { [$0] }, mode: mode, limit: limit).events == whole, "byte by byte")
        for cut in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 50)) {
            let split = decode([Array(bytes[..<cut]), Array(bytes[cut...])], mode: mode, limit: limit).events
            #expect(split == whole, "split at \(cut)")
        }
    }
}
