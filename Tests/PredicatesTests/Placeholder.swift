import Testing

@Test func placeholder_PredicatesTests() { #expect(Bool(true)) }
