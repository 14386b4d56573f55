import Foundation

/// Command line of grdb-baseline. Sizes and iteration counts are parallel lists so scripts/bench.sh
/// can run fewer (slow) iterations at 1M rows.
struct Options {
    var sizes = [10_000, 100_000, 1_000_000]
    var iterations = [200, 50, 15]
    var fetchRepeats = 5
    var commits = 1000
    var pipeRoundTrips = 10000
    var cycleChanges = 10_000
    var cycleMinRows = 1_000_000
    var directory = NSTemporaryDirectory()
    /// fetchd's binary: when given, the Swift pipe client measures it too (`FetchdPipeClient`).
    var fetchd: String?
    var fetchdChanges = 1000

    static let usage = """
        usage: grdb-baseline [--sizes 10000,100000,1000000] [--iterations 200,50,15]
                             [--fetch-repeats 5] [--cycle-changes 10000] [--cycle-min-rows 1000000]
                             [--commits 1000] [--pipe-round-trips 10000] [--dir SCRATCH_DIR]
                             [--fetchd PATH [--fetchd-changes 1000]]
        Prints one JSON object per line (Benchmarks/README.md).
        """

    enum Failure: Error, CustomStringConvertible {
        case bad(String)
        var description: String { if case .bad(let m) = self { m } else { "" } }
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" {
                print(usage)
                exit(0)
            }
            guard let value = rest.popFirst() else { throw Failure.bad("\(flag) needs a value") }
            switch flag {
            case "--sizes": options.sizes = try list(value, flag)
            case "--iterations": options.iterations = try list(value, flag)
            case "--fetch-repeats": options.fetchRepeats = try int(value, flag)
            case "--cycle-changes": options.cycleChanges = try int(value, flag)
            case "--cycle-min-rows": options.cycleMinRows = try int(value, flag)
            case "--commits": options.commits = try int(value, flag)
            case "--pipe-round-trips": options.pipeRoundTrips = try int(value, flag)
            case "--dir": options.directory = value
            case "--fetchd": options.fetchd = value
            case "--fetchd-changes": options.fetchdChanges = try int(value, flag)
            default: throw Failure.bad("unknown option \(flag)")
            }
        }
        if options.iterations.count == 1 {
            options.iterations = Array(repeating: options.iterations[0], count: options.sizes.count)
        }
        guard options.iterations.count == options.sizes.count else {
            throw Failure.bad("--iterations needs one count, or one per size")
        }
        guard options.sizes.allSatisfy({ $0 > 0 }), options.iterations.allSatisfy({ $0 > 0 }),
            options.fetchRepeats > 0, options.cycleChanges >= 0, options.commits > 0,
            options.pipeRoundTrips > 0, options.fetchdChanges > 0
        else {
            throw Failure.bad("sizes, iterations and repeats must be positive")
        }
        return options
    }

    private static func int(_ text: String, _ flag: String) throws -> Int {
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else {
            throw Failure.bad("\(flag): not an integer: \(text)")
        }
        return value
    }

    private static func list(_ text: String, _ flag: String) throws -> [Int] {
        try text.split(separator: ",").map { try int(String($0), flag) }
    }
}
