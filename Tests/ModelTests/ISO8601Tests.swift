import Model
import Testing

@Suite struct ISO8601Tests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (951_782_400.5, "2000-02-29T00:00:00.500Z"),
        (1_714_564_800.123, "2024-05-01T12:00:00.123Z"),
    ])
    func formats(seconds: Double, text: String) {
        #expect(ISO8601.format(seconds) == text)
        #expect(ISO8601.parse(text) == seconds)
    }

    @Test func acceptsZonesAndShortForms() {
        #expect(ISO8601.parse("2024-05-01") == 1_714_521_600)
        #expect(ISO8601.parse("2024-05-01T14:00:00+02:00") == 1_714_564_800)
        #expect(ISO8601.parse("2024-05-01T07:00-0500") == 1_714_564_800)
        #expect(ISO8601.parse("2024-05-01T12:00:00.1234Z") == 1_714_564_800.123)
    }

    @Test(arguments: [
        "", "2024", "2024-13-01", "2023-02-29", "2024-05-01T25:00", "2024-05-01T12:00:00Zjunk",
        "2024-05-01T12:00:00.", "24-05-01",
    ])
    func rejects(text: String) {
        #expect(ISO8601.parse(text) == nil)
    }
}
