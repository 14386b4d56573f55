import Model

/// Builds the `predicateSyntax` error every parse failure reports.
enum PredicateSyntax {
    static func error(_ predicate: String, offset: Int, expected: String) -> EngineError {
        EngineError(
            .predicateSyntax, "Cannot parse predicate at offset \(offset): expected \(expected)",
            [("predicate", .string(predicate)), ("offset", .int(Int64(offset))), ("expected", .string(expected))])
    }
}
