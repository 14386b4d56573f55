import Testing

@Test func placeholder_JSONRPCTests() { #expect(Bool(true)) }
