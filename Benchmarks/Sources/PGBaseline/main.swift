// pg-baseline: raw libpq floors for the PostgreSQL store, against a server given by URL
// (scripts/bench.sh starts a throwaway cluster, scripts/pg-cluster.sh).
//
//   pg-baseline --url URL [--rows 1000000] [--iterations 5] [--notifies 200]
//
// Result lines (suite "pg-raw"):
//   copy_load       COPY FROM STDIN of the n workload rows into an empty table, --iterations
//                   times (extra rows_per_s, at the p50)
//   initial_fetch   the ordered SELECT of ids and keys of the n rows into two arrays (binary results)
//   notify_latency  (n 0) another process's one-row UPDATE + NOTIFY transaction: sent -> the
//                   listener has read the notification (poll on the socket, PQconsumeInput)
// `pg-baseline --writer URL` is that other process (driven over its stdin).

import CLibPQ
import Foundation

struct Failure: Error, CustomStringConvertible {
    let description: String
}

func connect(_ url: String) throws -> OpaquePointer {
    guard let conn = PQconnectdb(url), PQstatus(conn) == CONNECTION_OK else {
        throw Failure(description: "cannot connect to \(url)")
    }
    PQsetNoticeProcessor(conn, { _, _ in }, nil) // "table does not exist, skipping"
    return conn
}

@discardableResult
func exec(_ conn: OpaquePointer, _ sql: String) throws -> OpaquePointer? {
    let result = PQexec(conn, sql)
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
        let message = String(cString: PQerrorMessage(conn))
        PQclear(result)
        throw Failure(description: "\(sql): \(message)")
    }
    PQclear(result)
    return nil
}

/// One timed COPY into a fresh table; `last` also builds the index the ordered query scans
/// and the statistics (untimed).
func copyLoad(_ conn: OpaquePointer, rows: Int, last: Bool) throws -> Double {
    try exec(conn, "DROP TABLE IF EXISTS msg")
    try exec(
        conn, "CREATE TABLE msg (id bigint PRIMARY KEY, ts bigint NOT NULL, sender text NOT NULL, body text NOT NULL)")
    let start = nowMicros()
    let begin = PQexec(conn, "COPY msg (id, ts, sender, body) FROM STDIN")
    guard PQresultStatus(begin) == PGRES_COPY_IN else { throw Failure(description: "COPY did not start") }
    PQclear(begin)
    // Batched into 64 KiB chunks, as a client streaming a file would.
    var chunk = ""
    chunk.reserveCapacity(1 << 17)
    func flush() throws {
        var bytes = chunk
        let rc = bytes.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(conn, $0.baseAddress, Int32($0.count)) }
        }
        guard rc == 1 else { throw Failure(description: "PQputCopyData failed") }
        chunk.removeAll(keepingCapacity: true)
    }
    try workloadCopyLines(count: rows) { line in
        chunk += line
        if chunk.utf8.count >= 1 << 16 { try flush() }
    }
    if !chunk.isEmpty { try flush() }
    guard PQputCopyEnd(conn, nil) == 1 else { throw Failure(description: "PQputCopyEnd failed") }
    while let result = PQgetResult(conn) {
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw Failure(description: "COPY: " + String(cString: PQresultErrorMessage(result)))
        }
    }
    let elapsed = nowMicros() - start
    guard last else { return elapsed }
    // The index the ordered query scans, built after the load (not timed), then statistics.
    try exec(conn, "CREATE INDEX msg_ts ON msg (ts, id)")
    try exec(conn, "VACUUM ANALYZE msg")
    return elapsed
}

/// Big-endian int8 of a binary-format result value.
@inline(__always)
func int64(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
    let raw = UnsafeRawPointer(PQgetvalue(result, row, column)!)
    return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
}

func orderedSelect(_ conn: OpaquePointer, rows: Int) throws -> Double {
    var ids: [Int64] = []
    var keys: [Int64] = []
    let start = nowMicros()
    let result = PQexecParams(conn, "SELECT id, ts FROM msg ORDER BY ts, id", 0, nil, nil, nil, nil, 1)
    guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else {
        throw Failure(description: "SELECT: " + String(cString: PQerrorMessage(conn)))
    }
    let n = PQntuples(result)
    ids.reserveCapacity(Int(n))
    keys.reserveCapacity(Int(n))
    for row in 0..<n {
        ids.append(int64(result, row, 0))
        keys.append(int64(result, row, 1))
    }
    PQclear(result)
    let elapsed = nowMicros() - start
    guard ids.count == rows else { throw Failure(description: "read \(ids.count) rows, expected \(rows)") }
    return elapsed
}

/// The other process: for each line on stdin, one transaction updating one row and
/// announcing it, sent in one round trip; the payload carries the monotonic time it was sent
/// (CLOCK_MONOTONIC is shared by the processes of one machine).
func writer(url: String) throws {
    let conn = try connect(url)
    var id = 0
    while readLine() != nil {
        id += 1
        // One round trip: the time is taken as the transaction is sent.
        try exec(
            conn,
            "BEGIN; UPDATE msg SET ts = ts + 1 WHERE id = \(id); NOTIFY fetchd_bench, '\(fmt(nowMicros()))'; COMMIT")
    }
    PQfinish(conn)
}

func notifyLatency(_ conn: OpaquePointer, url: String, samples: Int) throws -> [Double] {
    try exec(conn, "LISTEN fetchd_bench")
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["--writer", url]
    let input = Pipe()
    child.standardInput = input
    try child.run()
    defer {
        try? input.fileHandleForWriting.close()
        child.waitUntilExit()
    }
    var latencies: [Double] = []
    let fd = PQsocket(conn)
    for _ in 0..<samples {
        input.fileHandleForWriting.write("go\n".data(using: .utf8)!)
        var received: Double?
        while received == nil {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 10_000) > 0 else { throw Failure(description: "no notification within 10 s") }
            guard PQconsumeInput(conn) == 1 else { throw Failure(description: "connection lost") }
            while let notification = PQnotifies(conn) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                guard let sent = Double(payload) else { continue }
                received = nowMicros() - sent
            }
        }
        latencies.append(received!)
    }
    return latencies
}

func main() throws {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--writer", arguments.count == 2 {
        return try writer(url: arguments[1])
    }
    var url: String?
    var rows = 1_000_000
    var iterations = 5
    var notifies = 200
    while !arguments.isEmpty {
        let flag = arguments.removeFirst()
        guard let value = arguments.first else { throw Failure(description: "\(flag) needs a value") }
        arguments.removeFirst()
        switch flag {
        case "--url": url = value
        case "--rows": rows = Int(value) ?? rows
        case "--iterations": iterations = Int(value) ?? iterations
        case "--notifies": notifies = Int(value) ?? notifies
        default: throw Failure(description: "unknown option \(flag)")
        }
    }
    guard let url else { throw Failure(description: "usage: pg-baseline --url URL [--rows N] [--iterations K]") }
    let conn = try connect(url)
    defer { PQfinish(conn) }

    // As many loads as selects (a fresh table each): one COPY of a million rows varied from
    // 1.2 to 1.8 s between runs on a shared machine, and the ratio of fetchd's batch insert
    // is taken against this figure's median.
    let loadCount = max(1, iterations)
    FileHandle.standardError.write("pg-baseline: COPY of \(rows) rows x\(loadCount)\n".data(using: .utf8)!)
    let loads = try (0..<loadCount).map { k in try copyLoad(conn, rows: rows, last: k == loadCount - 1) }
    // The nearest-rank median, as `resultLine`'s p50.
    let median = loads.sorted()[max(Int((0.5 * Double(loads.count)).rounded(.up)), 1) - 1]
    print(
        resultLine(
            suite: "pg-raw", metric: "copy_load", n: rows, samples: loads,
            extra: [("rows_per_s", fmt(Double(rows) / (median / 1e6)))]))
    FileHandle.standardError.write("pg-baseline: ordered SELECT x\(iterations)\n".data(using: .utf8)!)
    _ = try orderedSelect(conn, rows: rows) // warm the cache
    let selects = try (0..<iterations).map { _ in try orderedSelect(conn, rows: rows) }
    print(resultLine(suite: "pg-raw", metric: "initial_fetch", n: rows, samples: selects))
    FileHandle.standardError.write("pg-baseline: commit -> notification x\(notifies)\n".data(using: .utf8)!)
    let latencies = try notifyLatency(conn, url: url, samples: notifies)
    print(resultLine(suite: "pg-raw", metric: "notify_latency", n: 0, samples: latencies))
}

do {
    try main()
} catch {
    FileHandle.standardError.write("pg-baseline: \(error)\n".data(using: .utf8)!)
    exit(1)
}
