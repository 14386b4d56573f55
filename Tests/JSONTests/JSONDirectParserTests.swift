import Foundation
import JSON
import TestSupport
import Testing

/// The direct parser against jansson: wherever the direct one answers, jansson gives the same
/// value (compared as serialized bytes, so -0.0 and 0.0 differ); where it does not, `parse`
/// gives jansson's answer, error included. FETCHD_ORACLE_CYCLES runs the random part longer.
@Suite struct JSONDirectParserTests {
    /// jansson's answer and the direct parser's for one text, and what `parse` says.
    private func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> (
        direct: JSON?, jansson: JSON?
    ) {
        bytes.withUnsafeBytes { raw in
            let direct = JSON.parseDirectly(raw)
            let jansson: Result<JSON, JSONParseError> = Result { () throws(JSONParseError) in
                try JSON.parseWithJansson(raw)
            }
            let parsed: Result<JSON, JSONParseError> = Result { () throws(JSONParseError) in try JSON.parse(raw) }
            let text = String(decoding: bytes.prefix(200), as: UTF8.self)
            if let direct {
                #expect(
                    (try? jansson.get())?.serialized == direct.serialized,
                    "direct \(direct) for \(text), jansson \(jansson)", sourceLocation: sourceLocation)
            }
            switch (parsed, jansson) {
            case (.success(let a), .success(let b)):
                #expect(a.serialized == b.serialized, "\(text)", sourceLocation: sourceLocation)
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(text)", sourceLocation: sourceLocation)
            case (.success, .failure(let b)) where b.reason.contains("NUL byte in object key"):
                // The one valid JSON jansson refuses, read by JSON.parse all the same
                // (JSONParseTests.keysMayHoldNUL).
                break
            default:
                Issue.record("parse \(parsed) but jansson \(jansson) for \(text)", sourceLocation: sourceLocation)
            }
            return (direct, try? jansson.get())
        }
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":7,"method":"store/batchInsert","params":{"entity":"Msg","keys":["a"],"rows":[[1],[2]]}}"#,
        " [ 1 , -0 , 0.5 , -1.25e-3 , 1E+2 , 1e400 , 1e-400 , 9223372036854775807 , -9223372036854775808 ] ",
        "9223372036854775808", "-9223372036854775809", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[--1]", "[+1]",
        "0.1", "-0.0", "123456789012345678901234567890.5", "2.2250738585072011e-308",
        #""\u00e9\ud83d\ude00 ü 😀\n\t\"\\\/\b\f\r""#, #""\ud800""#, #""\udc00""#, #""\ud83dx""#, #""\uZZZZ""#,
        #""\u0000""#, #"{"a\u0000":1}"#, #"{"a":1,"a":2}"#, #"{"a":1,"b":{"a":[]},"c":{}}"#, "[true,false,null]",
        "truex", "[nul]", "[true1]", "tru", "{\"a\" 1}", "{\"a\":}", "{,}", "[,]", "[1,]", "{\"a\":1,}", "{1:2}",
        "\"a\u{7F}b\"", "\u{FEFF}[]", "", " ", "[] []", "[]\n\r\t ", "\"\u{1}\"", "\"é\"", "[\"a\" \"b\"]",
    ])
    func agreesOnTheseTexts(_ text: String) {
        _ = check(Array(text.utf8))
    }

    @Test func leavesInvalidUTF8AndDeepNestingToJansson() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        ] {
            #expect(check(bytes).direct == nil)
        }
        let deep = Array(repeating: UInt8(ascii: "["), count: 600) + Array(repeating: UInt8(ascii: "]"), count: 600)
        let answer = check(deep)
        #expect(answer.direct == nil && answer.jansson != nil) // past its depth, jansson reads it
    }

    @Test func readsEveryGeneratedMessageItselfAndAgreesOnEveryMutation() {
        let seed: UInt64 = 0xD1EC7
        var random = SplitMix64(seed: seed)
        let count = max(400, Int(ProcessInfo.processInfo.environment["FETCHD_ORACLE_CYCLES"] ?? "") ?? 0)
        var mutatedAnswered = 0
        for n in 0..<count {
            var generator = TextGenerator(random: random)
            let text = generator.value(depth: 0)
            random = generator.random
            let answer = check(text)
            // Generated text has unique keys, depth <= 4 and only well-formed parts: all of it is
            // the direct parser's to read.
            #expect(answer.direct != nil, "seed \(seed) text \(n): \(String(decoding: text, as: UTF8.self))")
            for _ in 0..<8 {
                var bytes = text
                let at = random.below(bytes.count + 1)
                switch random.below(3) {
                case 0: if at < bytes.count { bytes.remove(at: at) }
                case 1: bytes.insert(TextGenerator.noise[random.below(TextGenerator.noise.count)], at: at)
                default:
                    if at < bytes.count { bytes[at] = TextGenerator.noise[random.below(TextGenerator.noise.count)] }
                }
                if check(bytes).direct != nil { mutatedAnswered += 1 }
            }
        }
        #expect(mutatedAnswered > 0)
    }
}

/// Random JSON text in the shapes messages take, spelled every way the grammar allows.
private struct TextGenerator {
    var random: SplitMix64
    static let noise: [UInt8] =
        Array("[]{}\",:\\/-+.eE0123456789 \n\tntfualsr\u{1}".utf8) + [0x80, 0xC3, 0xA9, 0xED, 0xFF, 0x00]

    mutating func value(depth: Int) -> [UInt8] {
        switch random.below(depth >= 4 ? 4 : 6) {
        case 0: return Array(["true", "false", "null"][random.below(3)].utf8)
        case 1: return integer()
        case 2: return real()
        case 3:
            var any = Set<String>()
            return string(avoiding: &any)
        case 4:
            let items = (0..<random.below(6)).map { _ in value(depth: depth + 1) }
            return Array("[".utf8) + space() + joined(items) + space() + Array("]".utf8)
        default:
            var keys = Set<String>()
            let members = (0..<random.below(6)).map { _ -> [UInt8] in
                string(avoiding: &keys, key: true) + space() + Array(":".utf8) + space() + value(depth: depth + 1)
            }
            return Array("{".utf8) + space() + joined(members) + space() + Array("}".utf8)
        }
    }

    private mutating func joined(_ parts: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, p) in parts.enumerated() { out += (i > 0 ? space() + Array(",".utf8) + space() : []) + p }
        return out
    }

    private mutating func space() -> [UInt8] {
        (0..<random.below(3)).map { _ in Array(" \n\t\r".utf8)[random.below(4)] }
    }

    private mutating func integer() -> [UInt8] {
        let edges: [Int64] = [0, 1, -1, .max, .min, .max - 1, 1 << 53 + 1]
        let v =
            random.chance(0.3) ? edges[random.below(edges.count)] : Int64(bitPattern: random.next()) >> random.below(63)
        return Array(String(v).utf8)
    }

    private mutating func real() -> [UInt8] {
        let digits = String(random.next() % 1_000_000)
        var text = (random.chance(0.5) ? "-" : "") + digits
        if random.chance(0.7) { text += "." + String(random.next() % 100_000) }
        if random.chance(0.5) || !text.contains(".") {
            text += ["e", "E"][random.below(2)] + ["", "+", "-"][random.below(3)] + String(random.below(300))
        }
        return Array(text.utf8)
    }

    /// A string of plain, escaped and non-ASCII characters, none of `taken` (an object's keys).
    /// (jansson refuses a key holding U+0000: a key has none.)
    private mutating func string(avoiding taken: inout Set<String>, key: Bool = false) -> [UInt8] {
        while true {
            var text = ""
            var spelled: [UInt8] = []
            for _ in 0..<random.below(12) {
                let scalars: [Unicode.Scalar] = [
                    "a", "Z", "0", " ", "é", "€", "😀", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "\u{7F}",
                ]
                let s = scalars[random.below(scalars.count)]
                if key && s == "\u{0}" { continue }
                text.unicodeScalars.append(s)
                spelled += spell(s)
            }
            if taken.insert(text).inserted { return Array("\"".utf8) + spelled + Array("\"".utf8) }
        }
    }

    private mutating func spell(_ s: Unicode.Scalar) -> [UInt8] {
        let short: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "/": "\\/"]
        if s.value < 0x20 || s == "\"" || s == "\\" || random.chance(0.2) {
            if let e = short[s], random.chance(0.5) { return Array(e.utf8) }
            var units: [UInt16] = []
            for u in String(s).utf16 { units.append(u) }
            return units.flatMap { Array(String(format: random.chance(0.5) ? "\\u%04x" : "\\u%04X", $0).utf8) }
        }
        return Array(String(s).utf8)
    }
}
