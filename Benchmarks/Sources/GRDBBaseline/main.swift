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
// A child that exits early fails a write with EPIPE rather than ending this process.
signal(SIGPIPE, SIG_IGN)

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
    if let fetchd = options.fetchd {
        // fetchd's figures are extra: a fetchd that fails costs them, not the baselines.
        do {
            let client = try FetchdPipeClient(
                fetchd: fetchd, stderrPath: options.directory + "/fetchd-swift-ping.stderr")
            defer { client.close() }
            emit(
                ResultLine(
                    suite: "fetchd-swift", metric: "request_roundtrip", n: 0,
                    summary: Summary(try client.pingRoundTrips(options.pipeRoundTrips)),
                    extra: [("method", "\"server/ping\"")]))
        } catch {
            log("fetchd through the Swift pipe client failed: \(error)")
        }
    }
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
        if let fetchd = options.fetchd {
            log("n=\(n): fetchd with the Swift pipe client, \(options.fetchdChanges) single-row changes")
            do { try measureFetchd(fetchd, rows: n, options: options) } catch {
                log("n=\(n): fetchd through the Swift pipe client failed: \(error)")
            }
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: Fixture.path(directory: options.directory, rows: n) + suffix)
        }
    }
} catch {
    log("failed: \(error)")
    exit(1)
}

/// fetchd's `change_e2e` through the Swift pipe client, on its own store in the scratch directory.
func measureFetchd(_ fetchd: String, rows n: Int, options: Options) throws {
    let store = options.directory + "/fetchd-swift-\(n).sqlite"
    let client = try FetchdPipeClient(fetchd: fetchd, stderrPath: store + ".stderr")
    defer {
        client.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
    }
    let result = try client.changeRoundTrips(store: store, rows: n, iterations: options.fetchdChanges)
    emit(
        ResultLine(
            suite: "fetchd-swift", metric: "change_e2e", n: n, summary: Summary(result.samples),
            extra: [("notified", String(result.notified))]))
}
