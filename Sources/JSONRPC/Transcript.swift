import JSON

/// A recorded session in JSON Lines (Tests/Transcripts/README.md):
///
///     {"framing": "lsp"}                  optional first line; ndjson by default
///     {"maxMessageSize": 100}             optional, before any step: --max-message-size
///     {"mcp": {"model": {...}, ...}}      optional, before any step: replay through `fetchd mcp`
///     {"send": {...} | [...]}             a message, sent in the transcript's framing
///     {"send": "raw text"}                a message body sent verbatim (not JSON, or a bare scalar)
///     {"sendBytes": "raw stream bytes"}   bytes sent with no framing added (bad headers ...)
///     {"expect": {...} | [...]}           the next message fetchd writes, byte for byte
///     {"exitCode": 0}                     the exit status once input ends
///     {"comment": "..."}                  ignored
public struct Transcript: Sendable {
    public enum Step: Equatable, Sendable {
        case send([UInt8])
        case sendBytes([UInt8])
        case expect(JSON)
        case exitCode(Int32)
    }

    public var framing: Framing
    public var maxMessageSize: Int = FramingLimits.defaultMaxMessageSize
    /// The session is `fetchd mcp`'s, over an in-memory store of `model`; `readOnly` and
    /// `maxRows` are its options (Tests/Transcripts/README.md).
    public var mcp: JSONObject?
    /// Each step with its 1-based line number, for reporting differences.
    public var steps: [(line: Int, step: Step)]

    public struct FormatError: Error, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public init(framing: Framing = .ndjson, steps: [(line: Int, step: Step)] = []) {
        self.framing = framing
        self.steps = steps
    }

    public init(parsing bytes: [UInt8]) throws {
        self.init()
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            let json: JSON
            do { json = try JSON.parse(Array(line)) } catch {
                throw FormatError(line: lineNumber, reason: "not JSON: \(error)")
            }
            guard let object = json.objectValue, object.count == 1, let (key, value) = object.entries.first else {
                throw FormatError(line: lineNumber, reason: "each line is an object with one member")
            }
            switch (key, value) {
            case ("framing", .string(let name)):
                guard lineNumber == 1 || steps.isEmpty, let f = Framing(rawValue: name) else {
                    throw FormatError(line: lineNumber, reason: "framing is ndjson or lsp, before any step")
                }
                framing = f
            case ("maxMessageSize", .integer(let limit)):
                guard steps.isEmpty, limit > 0 else {
                    throw FormatError(line: lineNumber, reason: "maxMessageSize is a positive integer, before any step")
                }
                maxMessageSize = Int(limit)
            case ("mcp", .object(let options)):
                guard steps.isEmpty, options["model"]?.objectValue != nil else {
                    throw FormatError(line: lineNumber, reason: "mcp is an object with a model, before any step")
                }
                mcp = options
            case ("send", .string(let raw)): steps.append((lineNumber, .send(Array(raw.utf8))))
            case ("send", .object), ("send", .array): steps.append((lineNumber, .send(value.serialized)))
            case ("sendBytes", .string(let raw)): steps.append((lineNumber, .sendBytes(Array(raw.utf8))))
            case ("expect", .object), ("expect", .array): steps.append((lineNumber, .expect(value)))
            case ("exitCode", .integer(let code)):
                steps.append((lineNumber, .exitCode(Int32(truncatingIfNeeded: code))))
            case ("comment", _): continue
            default:
                throw FormatError(line: lineNumber, reason: "unknown or mistyped member \"\(key)\"")
            }
        }
    }

    /// `body` framed as a client would send it.
    public func framed(_ body: [UInt8]) -> [UInt8] {
        switch framing {
        case .ndjson: return body + [0x0A]
        case .lsp: return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }
    }
}
