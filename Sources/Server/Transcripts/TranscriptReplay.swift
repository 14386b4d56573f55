import JSON
import JSONRPC
import Logging

/// Replays a transcript against a fresh in-process server and finds the first place where
/// fetchd's output differs from what the transcript expects.
public enum TranscriptReplay {
    public struct Difference: Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var expected: String
        public var got: String
        public init(line: Int, expected: String, got: String) {
            self.line = line
            self.expected = expected
            self.got = got
        }

        public var description: String { "line \(line):\n  expected \(expected)\n  got      \(got)" }
    }

    public static func run(_ transcript: Transcript, server: Server = Server(logger: quietLogger)) -> Difference? {
        var handler: MessageHandler = server
        if let options = transcript.mcp {
            let mcp = MCPHandler(
                server: server,
                configuration: .init(
                    readOnly: options["readOnly"] == .bool(true),
                    maxRows: options["maxRows"].flatMap { if case .integer(let n) = $0 { Int(n) } else { nil } } ?? 100)
            )
            if case .failure(let error) = mcp.open(StoreLocation.openParams(store: ":memory:", model: options["model"]))
            {
                return Difference(line: 1, expected: "an mcp model that opens", got: error.description)
            }
            handler = mcp
        }
        let session = Session(
            handler: handler, mode: FramingMode(rawValue: transcript.framing.rawValue) ?? .auto,
            limits: FramingLimits(maxMessageSize: transcript.maxMessageSize), logger: quietLogger)
        var written: [[UInt8]] = []
        let collect: (Frame) -> Void = { frame in written.append(body(of: frame, transcript.framing)) }
        var next = 0
        var lastLine = 0
        // Input ends after the last send: a final NDJSON line without its newline is answered then.
        let lastSend =
            transcript.steps.lastIndex {
                if case .send = $0.step { return true }
                if case .sendBytes = $0.step { return true }
                return false
            } ?? -1
        var finished = false
        for (index, (line, step)) in transcript.steps.enumerated() {
            if index > lastSend, !finished {
                finished = true
                session.finish(emit: collect)
            }
            lastLine = line
            switch step {
            case .send(let body):
                session.receive(transcript.framed(body), emit: collect)
            case .sendBytes(let bytes):
                session.receive(bytes, emit: collect)
            case .expect(let message):
                let expected = message.serialized
                guard next < written.count else {
                    return Difference(line: line, expected: text(expected), got: "nothing")
                }
                if written[next] != expected {
                    return Difference(line: line, expected: text(expected), got: text(written[next]))
                }
                next += 1
            case .exitCode(let code):
                let status = server.exitCode ?? 0
                if next < written.count {
                    return Difference(line: line, expected: "nothing more", got: text(written[next]))
                }
                if status != code {
                    return Difference(line: line, expected: "exit code \(code)", got: "exit code \(status)")
                }
            }
        }
        if !finished { session.finish(emit: collect) }
        if next < written.count {
            return Difference(line: lastLine + 1, expected: "nothing more", got: text(written[next]))
        }
        return nil
    }

    private static func body(of frame: Frame, _ framing: Framing) -> [UInt8] {
        switch framing {
        case .ndjson: return Array(frame.contents.dropLast())
        case .lsp: return Array(frame.contents.drop { $0 != 0x7B && $0 != 0x5B })
        }
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Replays log nothing: a difference is the whole report.
    public static var quietLogger: Logger {
        var logger = Logger(label: "fetchd.replay", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        return logger
    }
}
