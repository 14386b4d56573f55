// grdb-baseline: the re-query + diff peer (GRDB 7.10.0 ValueObservation + Swift
// CollectionDifference) and the raw SQLite SELECT floor, for each table size. One JSON line per
// figure on stdout; progress on stderr.
import Foundation

func log(_ message: String) {
    FileHandle.standardError.write(Data("grdb-baseline: \(message)\n".utf8))
}

func emit(_ line: ResultLine) {
    FileHandle.standardOutput.write(Data((line.render() + "\n").utf8))
}

if CommandLine.arguments.dropFirst().first == "--echo" { PipeBench.echo() }

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    log("\(error)\n\(Options.usage)")
    exit(2)
}

do {
    emit(
        ResultLine(
            suite: "pipe-raw", metric: "roundtrip", n: 0,
            summary: Summary(try PipeBench.run(iterations: options.pipeRoundTrips))))
    for (n, iterations) in zip(options.sizes, options.iterations) {
        log("n=\(n): building table")
        let queue = try Fixture.create(directory: options.directory, rows: n)

        let raw = try RawSelectBench(path: Fixture.path(directory: options.directory, rows: n), rows: n)
            .run(repeats: options.fetchRepeats)
        emit(ResultLine(suite: "sqlite-raw", metric: "initial_fetch", n: n, summary: Summary(raw)))

        let bench = RequeryDiffBench(queue: queue, rows: n)
        emit(
            ResultLine(
                suite: "grdb", metric: "initial_fetch", n: n,
                summary: Summary(try bench.fetchAll(repeats: options.fetchRepeats))))

        log("n=\(n): \(iterations) single-row changes")
        let cycle = n >= options.cycleMinRows ? options.cycleChanges : 0
        let result = try bench.run(iterations: iterations, cycleChanges: cycle)
        emit(
            ResultLine(
                suite: "grdb", metric: "change_latency", n: n, summary: Summary(result.single),
                extra: [
                    ("nonempty_diffs", String(result.nonEmptyDiffs)),
                    ("workload", "\"\(result.firstChange)\""),
                ]))
        if let cycleTime = result.cycle {
            emit(
                ResultLine(
                    suite: "grdb", metric: "cycle_latency", n: n, summary: Summary([cycleTime]),
                    extra: [("changes", String(cycle)), ("diff_size", String(result.cycleDiffSize))]))
        }
        try queue.close()
        let commits = try RawCommitBench(path: Fixture.path(directory: options.directory, rows: n), rows: n)
            .run(iterations: options.commits)
        emit(ResultLine(suite: "sqlite-raw", metric: "commit_latency", n: n, summary: Summary(commits)))
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: Fixture.path(directory: options.directory, rows: n) + suffix)
        }
    }
} catch {
    log("failed: \(error)")
    exit(1)
}
