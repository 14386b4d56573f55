import JSON
import Testing

@Suite struct JSONWriterTests {
    @Test(arguments: [
        (0.1, "0.1"), (1.5, "1.5"), (1.0, "1.0"), (-0.0, "-0.0"), (1e300, "1e+300"), (5e-324, "5e-324"),
        (0.30000000000000004, "0.30000000000000004"), (123456.789, "123456.789"),
    ])
    func doublesPrintInTheirShortestRoundTrippingForm(_ value: Double, _ text: String) throws {
        #expect(JSON.double(value).serializedString == text)
        #expect(try JSON.parse(text) == .double(value))
    }

    @Test func nonFiniteDoublesAreNull() {
        #expect(JSON.array([.double(.nan), .double(.infinity)]).serializedString == "[null,null]")
    }

    @Test func integersAreExact() {
        #expect(
            JSON.array([0, -1, .integer(.max), .integer(.min)]).serializedString
                == "[0,-1,9223372036854775807,-9223372036854775808]")
    }

    @Test func stringsEscapeOnlyWhatJSONRequires() {
        let s = JSON.string("q\"b\\n\nt\tc\u{1}z\u{0}é😀/\u{7F}")
        #expect(s.serializedString == #""q\"b\\n\nt\tc\u0001z\u0000é😀/\#u{7F}""#)
    }

    /// The writer skips eight bytes at a time: every byte that needs an escape (and its
    /// neighbours that do not) at every place of a word and across words.
    @Test func everyEscapeIsFoundAtEveryPlace() {
        func expected(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{8}": out += "\\b"
                case "\u{C}": out += "\\f"
                case let c where c.value < 0x20:
                    out += "\\u00" + (c.value < 0x10 ? "0" : "") + String(c.value, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let special: [Unicode.Scalar] = ["\u{0}", "\u{1F}", "\"", "\\", "\n", " ", "!", "#", "[", "]", "\u{7F}", "é"]
        for length in 1...19 {
            for place in 0..<length {
                for c in special {
                    var text = String(repeating: "a", count: length)
                    text.replaceSubrange(text.index(text.startIndex, offsetBy: place)..., with: String(c))
                    text += String(repeating: "b", count: length - place - 1)
                    #expect(JSON.string(text).serializedString == expected(text), "\(length) \(place) \(c.value)")
                }
            }
        }
    }

    @Test func outputIsCompactAndNeverHasARawNewline() {
        let json: JSON = ["a": [1, "x\ny"], "b": ["c": nil]]
        #expect(json.serializedString == #"{"a":[1,"x\ny"],"b":{"c":null}}"#)
        #expect(!json.serialized.contains(0x0A))
    }

    @Test func roundTripsThroughTheParser() throws {
        let json: JSON = ["k": [1, 2.25, "ü\u{0}", true, nil, ["nested": [[]]]], "": -7]
        #expect(try JSON.parse(json.serialized) == json)
    }

    @Test func bridgedStringsAreWrittenToo() {
        // A non-native (lazily bridged or substring-built) string takes the same path.
        let s = String("abc\"def".dropFirst())
        #expect(JSON.string(s).serializedString == #""bc\"def""#)
    }
}
