import Model

/// `@sum` and `@avg`, computed the same way in SQL (through the aggregate functions
/// `fetchd_sum`/`fetchd_avg`) and in memory. Values are summed in ascending order, so the
/// result of a floating-point sum does not depend on the order rows arrive in.
public enum Aggregates {
    /// Sum of the non-null values: an integer when every value is an integer (or boolean)
    /// and the sum fits in 64 bits, a double otherwise; 0 for no values.
    public static func sum(_ values: [Value]) -> Value {
        var ints: [Int64] = []
        var doubles: [Double] = []
        for v in values {
            switch v {
            case .integer(let i): ints.append(i)
            case .bool(let b): ints.append(b ? 1 : 0)
            case .double(let d), .date(let d): doubles.append(d)
            default: break
            }
        }
        if doubles.isEmpty {
            var total: Int64 = 0
            var overflow = false
            for i in ints {
                let (r, o) = total.addingReportingOverflow(i)
                if o {
                    overflow = true
                    break
                }
                total = r
            }
            if !overflow { return .integer(total) }
        }
        return .double(orderedSum(doubles + ints.map(Double.init)))
    }

    /// Mean of the non-null values as a double; null for no values.
    public static func average(_ values: [Value]) -> Value {
        let present = values.filter { !$0.isNull }
        guard !present.isEmpty else { return .null }
        let total: Double
        switch sum(present) {
        case .integer(let i): total = Double(i)
        case .double(let d): total = d
        default: total = 0
        }
        return .double(total / Double(present.count))
    }

    private static func orderedSum(_ xs: [Double]) -> Double {
        xs.sorted().reduce(0, +)
    }
}
