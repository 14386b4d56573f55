import FuzzDriver
import JSON
import JSONRPC
import Server

/// Every valid JSON-RPC request is answered with its id; a notification is not answered.
/// The input builds a request: a method (every name fetchd knows, or any text), params (any
/// JSON value: keys and strings with any scalar, U+0000 included; integers; doubles; nesting)
/// and an id (an integer, a string, or none). Its serialization is valid JSON by construction;
/// fetchd, on a fresh server with an in-memory store, must answer it exactly once, with that
/// id, whatever the params say.
@main enum FuzzAnswersMain {
    static func main() { runFuzzer { data, size in fuzzAnswers(data!, size) } }
}

/// Reads choices from the input; past its end every choice is 0.
struct Choices {
    let data: UnsafePointer<UInt8>
    let size: Int
    var i = 0

    mutating func byte() -> UInt8 {
        defer { i += 1 }
        return i < size ? data[i] : 0
    }

    mutating func int64() -> Int64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return Int64(bitPattern: v)
    }

    mutating func text() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int(byte() % 12) {
            let kind = byte()
            let value: UInt32
            switch kind % 4 {
            case 0: value = UInt32(byte() % 0x80) // ASCII, controls and U+0000 included
            case 1: value = UInt32(byte()) << 8 | UInt32(byte())
            case 2: value = 0x1F600 + UInt32(byte())
            default: value = UInt32(byte() % 26) + 0x61
            }
            scalars.append(Unicode.Scalar(value) ?? "?")
        }
        return String(scalars)
    }

    mutating func value(depth: Int) -> JSON {
        switch byte() % (depth > 4 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(byte() & 1 == 1)
        case 2: return .integer(int64())
        case 3:
            let d = Double(bitPattern: UInt64(bitPattern: int64()))
            return d.isFinite ? .double(d) : .integer(0)
        case 4: return .string(text())
        case 5: return .array((0..<Int(byte() % 4)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int(byte() % 4) { object[text()] = value(depth: depth + 1) }
            return .object(object)
        }
    }
}

let model: JSON = [
    "entities": [
        [
            "name": "N",
            "attributes": ["t": ["type": "string", "optional": true], "r": ["type": "integer", "default": 0]],
        ]
    ]
]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAnswers(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var choices = Choices(data: data, size: size)
    let server = Server()
    let names = server.methods.names
    let pick = Int(choices.byte())
    let method = pick < names.count * 2 ? names[pick % names.count] : choices.text()
    var params = choices.value(depth: 0)
    switch params {
    case .object(var object):
        // Nothing outside the process: no file or server named by the input.
        object["path"] = nil
        object["url"] = nil
        params = .object(object)
    case .array: break
    default: params = [params] // a valid request's params are structured (JSON-RPC 2.0 §4.2)
    }
    let id: JSON? =
        switch choices.byte() % 3 {
        case 0: .integer(choices.int64())
        case 1: .string(choices.text())
        default: nil
        }
    var request: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
    if choices.byte() & 1 == 1 { request["params"] = params }
    if let id { request["id"] = id }

    let session = Session(handler: server, mode: .ndjson)
    var written: [JSON] = []
    let open: JSON = ["jsonrpc": "2.0", "id": "open", "method": "store/open", "params": ["model": model]]
    session.receive(Array((open.serializedString + "\n").utf8)) { _ in }
    session.receive(Array((JSON.object(request).serializedString + "\n").utf8)) { frame in
        guard let message = try? JSON.parse(Array(frame.contents)) else { fatalError("fetchd wrote invalid JSON") }
        written.append(message)
    }
    server.close()
    let answers = written.filter { $0["method"] == nil }
    if let id {
        guard answers.count == 1, answers[0]["id"] == id else {
            fatalError("\(JSON.object(request).serializedString) was answered \(answers), not once with its id")
        }
    } else if !answers.isEmpty {
        fatalError("the notification \(JSON.object(request).serializedString) was answered \(answers)")
    }
    return 0
}
