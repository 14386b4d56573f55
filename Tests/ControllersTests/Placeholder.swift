import Testing

@Test func placeholder_ControllersTests() { #expect(Bool(true)) }
