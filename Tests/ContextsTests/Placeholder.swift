import Testing

@Test func placeholder_ContextsTests() { #expect(Bool(true)) }
