import Testing

@Test func placeholder_ServerTests() { #expect(Bool(true)) }
