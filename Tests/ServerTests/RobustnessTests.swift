import JSONRPC
import TestSupport
import Testing

/// Mangled input in random chunks: fetchd must answer with valid frames, never crash, and
/// give the same bytes for the same input however it is split.
@Suite struct RobustnessTests {
    /// A deterministic generator, so a failure reproduces from its seed.
    typealias Rng = SplitMix64

    static let seeds: [String] = [
        #"{"jsonrpc":"2.0","method":"server/echo","params":{"value":[1,"é",{"a":null}]},"id":1}"#,
        #"[{"jsonrpc":"2.0","method":"server/ping","id":"x"},{"jsonrpc":"2.0","method":"server/ping"}]"#,
        #"{"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"n"}},"id":2}"#,
        #"{"jsonrpc":"2.0","method":"shutdown","id":3}"#,
    ]

    static let punctuation = Array("{}[]\":,\\ 0\u{1}".utf8)

    func mangle(_ message: String, _ rng: inout Rng) -> [UInt8] {
        var bytes = Array(message.utf8)
        for _ in 0..<rng.below(4) {
            guard !bytes.isEmpty else { break }
            let i = rng.below(bytes.count)
            switch rng.below(4) {
            case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next()) // any byte, invalid UTF-8 included
            case 1: bytes.remove(at: i)
            case 2: bytes.insert(Self.punctuation[rng.below(Self.punctuation.count)], at: i)
            default: bytes.removeSubrange(i...)
            }
        }
        // NDJSON frames end at a newline; keep the message on one line.
        return bytes.map { $0 == 0x0A ? 0x20 : $0 }
    }

    @Test(arguments: [Framing.ndjson, .lsp], Array(UInt64(1)...UInt64(20)))
    func mangledInputIsAnsweredWithValidFrames(_ framing: Framing, _ seed: UInt64) {
        var rng = Rng(seed: seed)
        var stream: [UInt8] = []
        for _ in 0..<40 {
            let body = mangle(Self.seeds[rng.below(Self.seeds.count)], &rng)
            switch framing {
            case .ndjson: stream += body + [0x0A]
            case .lsp:
                // Sometimes a broken header too.
                let header =
                    rng.below(10) == 0
                    ? "Content-Length: x\(body.count)\r\n\r\n" : "Content-Length: \(body.count)\r\n\r\n"
                stream += Array(header.utf8) + body
            }
        }
        let whole = Harness(framing)
        whole.send(raw: stream)
        let messages = Harness.messages(whole.output, framing: framing)
        messages.forEach(checkInvariants)
        #expect(messages.contains { $0["error"]?["code"] == -32700 })

        let chunked = Harness(framing)
        var offset = 0
        while offset < stream.count {
            let n = 1 + rng.below(64)
            chunked.send(raw: Array(stream[offset..<min(offset + n, stream.count)]))
            offset += n
        }
        #expect(chunked.output == whole.output)
    }
}
