import JSON
import JSONRPC

/// Checks protocol.md's examples against recorded transcripts, so the docs cannot drift from
/// the behaviour. A fenced block that shows JSON-RPC messages must come right after a marker
///
///     <!-- transcript: NAME.jsonl -->
///
/// and its messages, one JSON text per line, must appear in NAME.jsonl in the same order (not
/// necessarily adjacent: an example may show part of a session). `-->`/`->` marks a message
/// the client sends, `<--`/`<-` one fetchd writes; an unmarked line may be either. Lines of
/// prose inside the block (`(process exits with 0)`) are left alone.
struct ProtocolExamples {
    enum Direction: Equatable { case send, expect, either }

    struct Message: Equatable {
        var line: Int
        var direction: Direction
        var json: JSON
    }

    struct Block {
        /// 1-based line of the opening fence.
        var line: Int
        var transcript: String?
        var messages: [Message]
    }

    struct Problem: Equatable, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "protocol.md:\(line): \(reason)" }
    }

    static let markerPrefix = "<!-- transcript:"
    private static let prefixes: [(String, Direction)] = [
        ("-->", .send), ("<--", .expect), ("->", .send), ("<-", .expect),
    ]

    /// Every fenced block with at least one JSON-RPC message, plus the problems found while
    /// reading them (a message line that is not JSON, a marker with no example under it).
    static func blocks(in markdown: String) -> (blocks: [Block], problems: [Problem]) {
        var blocks: [Block] = []
        var problems: [Problem] = []
        var marker: (line: Int, name: String)?
        var open: Block?
        for (index, raw) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                if let block = open {
                    if !block.messages.isEmpty {
                        blocks.append(block)
                    } else if block.transcript != nil {
                        problems.append(
                            Problem(
                                line: block.line, reason: "a transcript marker over a block with no JSON-RPC message"))
                    }
                    open = nil
                } else {
                    open = Block(line: number, transcript: marker?.name, messages: [])
                    marker = nil
                }
                continue
            }
            if open != nil {
                switch message(line) {
                case .none: break
                case .some(.success(let (direction, json))):
                    open!.messages.append(Message(line: number, direction: direction, json: json))
                case .some(.failure(let reason)):
                    problems.append(Problem(line: number, reason: reason.reason))
                }
                continue
            }
            if let m = marker, !line.isEmpty {
                problems.append(
                    Problem(line: m.line, reason: "a transcript marker must come right before a fenced block"))
                marker = nil
            }
            if line.hasPrefix(markerPrefix), line.hasSuffix("-->") {
                let name = line.dropFirst(markerPrefix.count).dropLast(3).trimmingCharacters(in: .whitespaces)
                marker = (number, name)
            }
        }
        if let m = marker {
            problems.append(Problem(line: m.line, reason: "a transcript marker must come right before a fenced block"))
        }
        return (blocks, problems)
    }

    struct Unreadable: Error { var reason: String }

    /// A line of a fenced block as a message: a line with a direction prefix must be one JSON
    /// text; an unmarked line is a message when it is a JSON-RPC object or batch (a line that
    /// starts like one must parse); anything else (prose, other JSON) is not a message.
    static func message(_ line: String) -> Result<(Direction, JSON), Unreadable>? {
        for (prefix, direction) in prefixes where line.hasPrefix(prefix + " ") {
            let body = line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
            do { return .success((direction, try JSON.parse(body))) } catch {
                return .failure(Unreadable(reason: "a message line that is not one JSON text: \(error)"))
            }
        }
        guard line.hasPrefix("{") || line.hasPrefix("[") else { return nil }
        if let json = try? JSON.parse(line) { return isMessage(json) ? .success((.either, json)) : nil }
        let compact = line.filter { !$0.isWhitespace }
        if compact.hasPrefix("{\"jsonrpc\"") || compact.hasPrefix("[{\"jsonrpc\"") {
            return .failure(Unreadable(reason: "a message line that is not one JSON text"))
        }
        return nil
    }

    /// The problems of one block against the transcript it names (its steps as parsed).
    static func check(_ block: Block, against transcript: Transcript) -> [Problem] {
        var recorded: [(Direction, JSON)] = []
        for (_, step) in transcript.steps {
            switch step {
            case .send(let bytes): if let json = try? JSON.parse(bytes) { recorded.append((.send, json)) }
            case .expect(let json): recorded.append((.expect, json))
            case .sendBytes, .exitCode: continue
            }
        }
        var next = 0
        for message in block.messages {
            guard
                let found = recorded[next...].firstIndex(where: {
                    ($0.0 == message.direction || message.direction == .either) && same($0.1, message.json)
                })
            else {
                let what =
                    message.direction == .expect
                    ? "an answer" : message.direction == .send ? "a message sent" : "a message"
                return [
                    Problem(
                        line: message.line,
                        reason:
                            "\(what) that \(block.transcript ?? "the transcript") does not have at this point: \(String(decoding: message.json.serialized, as: UTF8.self))"
                    )
                ]
            }
            next = found + 1
        }
        return []
    }

    /// Equal as JSON: object members in any order, arrays in order, numbers by type and value.
    static func same(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && x.allSatisfy { member in y[member.key].map { same(member.value, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default:
            return a == b
        }
    }

    private static func isMessage(_ json: JSON) -> Bool {
        if json["jsonrpc"] != nil { return true }
        if let items = json.arrayValue { return !items.isEmpty && items.allSatisfy { $0["jsonrpc"] != nil } }
        return false
    }
}
