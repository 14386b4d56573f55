import Model
import Testing

@Suite struct ValueEqualityTests {
    @Test func textIsComparedByScalarsNotCanonicalEquivalence() {
        #expect(Value.string("é") != Value.string("e\u{301}"))
        #expect(Value.string("é") == Value.string("\u{e9}"))
        #expect(Set([Value.string("é"), .string("e\u{301}")]).count == 2)
        #expect(Value.uuid("a") != Value.string("a"))
    }

    @Test func textDecidesOnEveryByteShortOrLong() {
        let long = String(repeating: "body of message ", count: 4)
        #expect(Value.string(long + "a") == .string(String((long + "ab").dropLast()))) // other storage
        #expect(Value.string(long + "a") != .string(long + "b")) // the last byte
        #expect(Value.string("b" + long) != .string("a" + long)) // the first byte
        #expect(Value.string("abc") != .string("abd"))
        #expect(Value.string("") == .string(""))
        #expect(Value.string("") != .string("a"))
        #expect(Value.string("ab") != .string("abc"))
    }

    @Test func otherKindsKeepTheirEquality() {
        #expect(Value.double(-0.0) == .double(0))
        #expect(Value.integer(1) != .double(1))
        #expect(Value.date(5) != .double(5))
        #expect(Value.objects([ObjectID(entity: "A", number: 1)]) == .objects([ObjectID(entity: "A", number: 1)]))
        #expect(Set([Value.null, .null, .bool(true), .integer(1)]).count == 3)
    }
}
