import Foundation
import JSON
import JSONRPC
import Testing

/// protocol.md's examples are recorded transcripts (see ProtocolExamples): every block that
/// shows JSON-RPC messages names its transcript, and says what the transcript says.
@Suite struct ProtocolExamplesTests {
    static let root = #filePath.components(separatedBy: "/Tests/")[0]

    static func transcript(named name: String) throws -> Transcript {
        try Transcript(parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/Tests/Transcripts/" + name))))
    }

    static func protocolBlocks() throws -> (blocks: [ProtocolExamples.Block], problems: [ProtocolExamples.Problem]) {
        ProtocolExamples.blocks(in: try String(contentsOfFile: root + "/protocol.md", encoding: .utf8))
    }

    @Test func protocolMarkdownReadsCleanly() throws {
        let (blocks, problems) = try Self.protocolBlocks()
        #expect(problems.isEmpty, "\(problems)")
        #expect(blocks.count >= 5, "protocol.md has \(blocks.count) examples with messages")
    }

    @Test func everyExampleWithMessagesNamesItsTranscript() throws {
        for block in try Self.protocolBlocks().blocks {
            #expect(
                block.transcript != nil,
                "protocol.md:\(block.line): an example with no <!-- transcript: NAME.jsonl --> marker")
        }
    }

    @Test func everyMarkedExampleIsInItsTranscript() throws {
        for block in try Self.protocolBlocks().blocks {
            guard let name = block.transcript else { continue }
            guard let transcript = try? Self.transcript(named: name) else {
                Issue.record("protocol.md:\(block.line): no transcript Tests/Transcripts/\(name)")
                continue
            }
            let problems = ProtocolExamples.check(block, against: transcript)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    // The checker itself, on small documents.

    static let session = try! Transcript(
        parsing: Array(
            """
            {"send":{"jsonrpc":"2.0","method":"server/ping","id":1}}
            {"expect":{"jsonrpc":"2.0","result":{},"id":1}}
            {"send":{"jsonrpc":"2.0","method":"server/echo","params":{"value":2},"id":2}}
            {"expect":{"jsonrpc":"2.0","result":2,"id":2}}
            """.utf8))

    func problems(_ markdown: String) -> [ProtocolExamples.Problem] {
        let (blocks, problems) = ProtocolExamples.blocks(in: markdown)
        return problems + blocks.flatMap { ProtocolExamples.check($0, against: Self.session) }
    }

    @Test func aMatchingExamplePasses() {
        #expect(
            problems(
                """
                <!-- transcript: t.jsonl -->
                ```
                --> {"jsonrpc":"2.0","method":"server/echo","params":{"value":2},"id":2}
                <--  {"id":2,"result":2,"jsonrpc":"2.0"}
                (then nothing)
                ```
                """) == [])
    }

    @Test func aWrongAnswerIsReportedAtItsLine() {
        let found = problems(
            """
            <!-- transcript: t.jsonl -->

            ```json
            {"jsonrpc":"2.0","method":"server/ping","id":1}
            {"jsonrpc":"2.0","result":[],"id":1}
            ```
            """)
        #expect(found.map(\.line) == [5])
    }

    @Test func orderAndDirectionCount() {
        #expect(
            problems(
                """
                <!-- transcript: t.jsonl -->
                ```
                <- {"jsonrpc":"2.0","result":2,"id":2}
                <- {"jsonrpc":"2.0","result":{},"id":1}
                ```
                """
            ).map(\.line) == [4])
        #expect(
            problems(
                """
                <!-- transcript: t.jsonl -->
                ```
                -> {"jsonrpc":"2.0","result":{},"id":1}
                ```
                """
            ).map(\.line) == [3])
    }

    @Test func unmarkedBlocksAreFoundAndOtherJSONIsLeftAlone() {
        let (blocks, problems) = ProtocolExamples.blocks(
            in: """
                ```json
                {"entity": "Book", "predicate": "pages > 3"}
                ```
                ```
                <-- {"jsonrpc":"2.0","result":{},"id":1}
                ```
                """)
        #expect(problems == [])
        #expect(blocks.count == 1)
        #expect(blocks.first?.line == 4)
        #expect(blocks.first?.transcript == nil)
    }

    @Test func brokenMessagesAndStrayMarkersAreProblems() {
        #expect(
            problems(
                """
                ```
                --> {"jsonrpc":"2.0",
                {"jsonrpc": "2.0", "id": }
                ```
                """
            ).map(\.line) == [2, 3])
        #expect(
            problems(
                """
                <!-- transcript: t.jsonl -->
                Some prose first.
                ```
                ```
                """
            ).map(\.line) == [1])
        #expect(
            problems(
                """
                <!-- transcript: t.jsonl -->
                ```
                fetchd --help
                ```
                """
            ).map(\.line) == [2])
    }
}
