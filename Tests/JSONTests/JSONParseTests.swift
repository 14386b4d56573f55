import JSON
import Testing

@Suite struct JSONParseTests {
    @Test func parsesEveryTypeKeepingKeyOrder() throws {
        let json = try JSON.parse(#"{"z":1,"a":[true,false,null],"m":{"x":"y"},"d":2.5}"#)
        #expect(json == ["z": 1, "a": [true, false, nil], "m": ["x": "y"], "d": 2.5])
        #expect(json.objectValue?.keys == ["z", "a", "m", "d"])
    }

    @Test func scalarsAreJSONToo() throws {
        // JSON_DECODE_ANY: a bare scalar parses, so "valid JSON but not a request" is distinguishable.
        #expect(try JSON.parse("42") == .integer(42))
        #expect(try JSON.parse("\"x\"") == .string("x"))
        #expect(try JSON.parse("null") == .null)
    }

    @Test func integersAreExact64Bit() throws {
        #expect(try JSON.parse("9223372036854775807") == .integer(Int64.max))
        #expect(try JSON.parse("-9223372036854775808") == .integer(Int64.min))
        #expect(try JSON.parse("9007199254740993") == .integer(9_007_199_254_740_993))
    }

    @Test func integersBeyondInt64AreAParseErrorWithAClearReason() {
        for text in ["9223372036854775808", "-9223372036854775809", "[1, 99999999999999999999]"] {
            #expect {
                try JSON.parse(text)
            } throws: { error in
                (error as? JSONParseError)?.reason.contains("64-bit") == true
            }
        }
    }

    @Test func stringsCarryAnyUnicodeAndNUL() throws {
        #expect(try JSON.parse(#""\u00e9\ud83d\ude00 ü 😀""#) == .string("é😀 ü 😀"))
        #expect(try JSON.parse(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(try JSON.parse(#""foo\/bar""#) == .string("foo/bar"))
    }

    @Test(arguments: [
        #"{"a":1"#, "{} x", "[1,]", "NaN", "// c\n{}", "\"\\ud800\"", "\u{FEFF}{}", "{\"a\":\"\u{1}\"}", "",
        #"{"a\u0000":1,}"#, #"{"a\u0000":"\ud800"}"#,
    ])
    func rejectsWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    /// A key holding U+0000 is valid JSON that jansson's objects cannot hold: read all the same,
    /// so a message with one is answered with its id rather than as a parse error.
    @Test func keysMayHoldNUL() throws {
        #expect(try JSON.parse(#"{"a\u0000":1}"#) == ["a\u{0}": 1])
        #expect(try JSON.parse(#"{"x":{"\u0000":[{"b\u0000c":null}]},"id":3}"#)["id"] == 3)
        // Duplicates among them keep the last value, as jansson does elsewhere.
        #expect(try JSON.parse(#"{"a\u0000":1,"b":2,"a\u0000":3}"#) == ["a\u{0}": 3, "b": 2])
        // It serializes back to text that reads the same.
        let value = try JSON.parse(#"{"a\u0000":1}"#)
        #expect(try JSON.parse(value.serialized) == value)
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try JSON.parse(#"{"id":1,"id":2}"#) == ["id": 2])
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 200_000)
        #expect {
            try JSON.parse(deep)
        } throws: { error in
            (error as? JSONParseError)?.reason.contains("nesting too deep") == true
        }
        // Just inside the limit parses.
        let ok = String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)
        #expect((try? JSON.parse(ok)) != nil)
    }

    @Test func errorsCarryTheirPosition() {
        #expect {
            try JSON.parse("{\n  \"a\": ?}")
        } throws: { error in
            guard let e = error as? JSONParseError else { return false }
            return e.line == 2 && e.column > 0
        }
    }
}
