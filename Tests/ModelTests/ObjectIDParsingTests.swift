import Testing

@testable import Model

/// `Entity/N` as the wire writes ids: the name before the last slash, a positive decimal
/// number of ASCII digits after it that fits 64 bits; nothing else is an id.
@Suite struct ObjectIDParsingTests {
    @Test func wellFormedIdsParse() {
        #expect(ObjectID("Note/12") == ObjectID(entity: "Note", number: 12))
        #expect(ObjectID("a/b/3") == ObjectID(entity: "a/b", number: 3))
        #expect(ObjectID("Ä/9223372036854775807") == ObjectID(entity: "Ä", number: .max))
        #expect(ObjectID("Note/007") == ObjectID(entity: "Note", number: 7))
        #expect(ObjectID("Note/12")?.description == "Note/12")
        // A name too long to be stored inline in the String.
        #expect(
            ObjectID("AnEntityWithAVeryLongName/42") == ObjectID(entity: "AnEntityWithAVeryLongName", number: 42))
    }

    @Test func anythingElseIsNotAnId() {
        for text in [
            "", "Note", "/1", "Note/", "Note/0", "Note/-1", "Note/+1", "Note/1x", "Note/ 1", "Note/١٢",
            "Note/9223372036854775808", "Note/99999999999999999999",
        ] {
            #expect(ObjectID(text) == nil, "\(text)")
            #expect(!ObjectID.isWellFormed(text), "\(text)")
        }
    }
}
