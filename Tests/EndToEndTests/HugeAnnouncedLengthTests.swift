import Foundation
import Testing

/// An LSP header announcing an enormous body under a large --max-message-size: fetchd waits
/// for the bytes (its buffer grows with what arrives, not with the announcement) and exits 0
/// when input ends inside the message, instead of aborting while allocating.
@Suite struct HugeAnnouncedLengthTests {
    @Test(arguments: ["100000000000000", "100000000000", "50000000000"])
    func aHugeAnnouncedLengthIsNotAllocated(_ length: String) throws {
        let ping = #"{"jsonrpc":"2.0","method":"server/ping","id":1}"#
        let input = lspFrame(ping) + "Content-Length: \(length)\r\n\r\n{\"jsonrpc\":\"2.0\""
        let r = try FetchdProcess.run(["--max-message-size", "1000000000000000"], input: input)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.output.contains(#""result":{},"id":1"#))
    }
}
