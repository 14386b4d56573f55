// One JSON object per line on stdout: the result format every baseline shares
// (see Benchmarks/README.md). Built by hand: the keys are fixed and plain ASCII.

import Foundation

struct ResultLine {
    let suite: String
    let metric: String
    let n: Int
    let summary: Summary
    var extra: [(String, String)] = []

    func render() -> String {
        var fields: [(String, String)] = [
            ("suite", quoted(suite)), ("metric", quoted(metric)), ("n", String(n)),
            ("unit", quoted("us")), ("samples", String(summary.samples)),
            ("p50", number(summary.p50)), ("p99", number(summary.p99)), ("mean", number(summary.mean)),
            ("min", number(summary.min)), ("max", number(summary.max)),
        ]
        fields += extra
        return "{" + fields.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    private func quoted(_ s: String) -> String { "\"" + s + "\"" }

    private func number(_ x: Double) -> String { String(format: "%.3f", x) }
}
