import Foundation
import JSON
import JSONRPC
import Server
import TestSupport
import Testing

/// protocol.md §1.1: a message may arrive split over any number of reads. Every recorded
/// transcript's client bytes, and every hostile stream below, must get byte-identical answers
/// whether delivered at once, split at seeded random points, or one byte per read.
@Suite struct SplitReadsTests {
    /// The client side of a transcript as one byte stream.
    static func clientBytes(_ file: String) throws -> (bytes: [UInt8], limit: Int) {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TranscriptTests.directory + "/" + file)))
        let transcript = try Transcript(parsing: data)
        var bytes: [UInt8] = []
        for (_, step) in transcript.steps {
            switch step {
            case .send(let body): bytes += transcript.framed(body)
            case .sendBytes(let raw): bytes += raw
            default: break
            }
        }
        return (bytes, transcript.maxMessageSize)
    }

    /// What a fresh server writes for `bytes` delivered in reads of the given sizes.
    static func answers(_ bytes: [UInt8], reads: [Int], limit: Int = FramingLimits.defaultMaxMessageSize) -> [UInt8] {
        let session = Session(
            handler: Server(logger: TranscriptReplay.quietLogger), mode: .auto,
            limits: FramingLimits(maxMessageSize: limit), logger: TranscriptReplay.quietLogger)
        var output: [UInt8] = []
        var offset = 0
        for n in reads {
            session.receive(Array(bytes[offset..<(offset + n)])) { output += $0.contents }
            offset += n
        }
        session.finish { output += $0.contents }
        return output
    }

    static func randomReads(_ count: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        var reads: [Int] = []
        var left = count
        while left > 0 {
            let n = min(left, 1 + rng.below(rng.chance(0.2) ? 4096 : 40))
            reads.append(n)
            left -= n
        }
        return reads
    }

    static func checkSplits(_ bytes: [UInt8], limit: Int = FramingLimits.defaultMaxMessageSize, _ label: String) {
        let whole = answers(bytes, reads: bytes.isEmpty ? [] : [bytes.count], limit: limit)
        for seed in UInt64(1)...3 {
            let split = answers(bytes, reads: randomReads(bytes.count, seed: seed), limit: limit)
            #expect(split == whole, "\(label): seed \(seed) split answers differ")
        }
        let byByte = answers(bytes, reads: Array(repeating: 1, count: bytes.count), limit: limit)
        #expect(byByte == whole, "\(label): byte-by-byte answers differ")
    }

    @Test(arguments: TranscriptTests.files)
    func everyTranscriptGivesTheSameAnswersHoweverItsBytesAreSplit(_ file: String) throws {
        let (bytes, limit) = try Self.clientBytes(file)
        Self.checkSplits(bytes, limit: limit, file)
    }

    static let ping = #"{"jsonrpc":"2.0","method":"server/ping","id":7}"#
    static func lsp(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    /// Streams whose framing is wrong in some way, each followed by a valid ping.
    static let hostileStreams: [(String, [UInt8])] = [
        (
            "a 9,000-byte header line",
            Array(
                ("Content-Length: 2\r\nX-Pad: " + String(repeating: "p", count: 9000)
                    + "\r\n\r\n{}" + lsp(ping)).utf8)
        ),
        (
            "a header without its blank line",
            Array(
                ("Content-Length: 2\r\n" + String(repeating: "X-A: b\r\n", count: 1200)
                    + lsp(ping)).utf8)
        ),
        ("a short Content-Length", Array(("Content-Length: 10\r\n\r\n" + ping + lsp(ping)).utf8)),
        ("a malformed header", Array(("Content-Length: x\r\n\r\n{}" + lsp(ping)).utf8)),
        ("two Content-Lengths", Array(("Content-Length: 1\r\nContent-Length: 2\r\n\r\n{}" + lsp(ping)).utf8)),
        ("an oversized LSP message", Array(("Content-Length: 300000000\r\n\r\n" + lsp(ping)).utf8)),
        (
            "a foreign charset",
            Array(("Content-Length: 2\r\nContent-Type: a; charset=latin1\r\n\r\n{}" + lsp(ping)).utf8)
        ),
        ("NDJSON garbage and blank lines", Array(("\n  \r\n{\"a\":\n[1,2\n\r\n" + ping + "\n").utf8)),
        ("NDJSON with CRLF", Array((ping + "\r\n" + ping + "\r\n").utf8)),
        ("a stray first byte", Array(("x" + lsp(ping)).utf8)),
    ]

    @Test(arguments: 0..<hostileStreams.count)
    func hostileStreamsGiveTheSameAnswersHoweverTheyAreSplit(_ index: Int) {
        let (label, bytes) = Self.hostileStreams[index]
        Self.checkSplits(bytes, label)
    }

    @Test func tooLongNDJSONLinesAreJudgedOnTheirBytes() {
        // After a first message (framing detected), a line of exactly the limit followed by
        // \r\n, and one a byte longer, with a small limit (the ping itself fits).
        let ping = #"{"jsonrpc":"2.0","method":"server/ping"}"#
        let fits = Array((ping + "\n[" + String(repeating: " ", count: 62) + "]\r\n" + ping + "\n").utf8)
        let over = Array((ping + "\n[" + String(repeating: " ", count: 63) + "]\r\n" + ping + "\n").utf8)
        for bytes in [fits, over] { Self.checkSplits(bytes, limit: 64, "limit 64") }
        let answers = String(decoding: Self.answers(over, reads: [over.count], limit: 64), as: UTF8.self)
        #expect(answers.contains("-32600") || answers.contains("too large"), "\(answers)")
    }

    @Test func aMessageAfterAShortContentLengthIsAnswered() {
        let bytes = Array(("Content-Length: 10\r\n\r\n" + Self.ping + Self.lsp(Self.ping)).utf8)
        let messages = Harness.messages(Self.answers(bytes, reads: [bytes.count]), framing: .lsp)
        // The 10 bytes are not JSON (a parse error), the rest of the body glued to the next
        // header is a malformed header; the ping behind it is still answered.
        #expect(messages.count == 3)
        #expect(messages.dropLast().allSatisfy { $0["error"]?["code"] == .integer(-32700) })
        #expect(messages.last?.serialized == Array(#"{"jsonrpc":"2.0","result":{},"id":7}"#.utf8))
    }
}
