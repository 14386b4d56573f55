import Contexts
import Model
import Postgres
import Store
import TestSupport
import Testing

@testable import Controllers

#if canImport(Glibc)
    import Glibc
#endif

/// BatchBenchmarkTests on PostgreSQL: batchInsert with a live controller against a raw COPY
/// of the same rows into a table like pg-baseline's, on the same cluster in the same run
/// (FETCHD_BENCH=1, release). Wall-clock time: the server's work counts.
/// Needs a cluster (`make bench` passes the one it starts): the in-process benchmarks of
/// `--filter BenchmarkTests` run without one.
@Suite(
    .serialized,
    .enabled(if: getenvString("FETCHD_BENCH") == "1" && getenvString("FETCHD_TEST_POSTGRES_URL") != nil))
struct PGBatchBenchmarkTests {
    static func wall() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The rows by COPY into msg(id primary key, ts, sender, body); the ts index is built
    /// after, untimed, as pg-baseline does.
    static func rawCopy(_ rows: [Snapshot], _ db: PGConnection) throws -> Double {
        try db.exec(
            "CREATE TABLE msg (id bigint PRIMARY KEY, ts bigint NOT NULL, sender text NOT NULL, body text NOT NULL)")
        func text(_ v: Value?) -> String? {
            switch v {
            case .integer(let i): String(i)
            case .string(let s): s
            default: nil
            }
        }
        let text: [[String?]] = rows.enumerated().map { i, r in
            [String(i + 1), text(r["ts"]), text(r["sender"]), text(r["body"])]
        }
        let t = wall()
        try db.copyRows(into: "msg", columns: ["id", "ts", "sender", "body"], text)
        return wall() - t
    }

    @Test func batchInsertAgainstRawCopy() throws {
        let url = try TestPostgres.url()
        let schema = "fetchd_batch_bench_\(getpid())"
        let raw = try PGConnection(url)
        // The raw table in a schema of its own: the store's schema must hold only its tables.
        let drop = "DROP SCHEMA IF EXISTS \(schema) CASCADE; DROP SCHEMA IF EXISTS \(schema)_raw CASCADE"
        try raw.exec("SET client_min_messages = warning; \(drop)")
        defer { _ = try? raw.exec(drop) }
        try raw.exec("CREATE SCHEMA \(schema)_raw; SET search_path TO \(schema)_raw")
        let n = BatchBenchmarkTests.n
        let rows = BatchBenchmarkTests.rows(n)
        let rawTime = try Self.rawCopy(rows, raw)
        let graph = ObjectGraph(
            store: try PGStore.open(url: url, model: BatchBenchmarkTests.model, schema: schema))
        defer { graph.store.close() }
        let c = try BatchBenchmarkTests.controller(graph)
        let t = Self.wall()
        let cpu = BenchmarkTests.now()
        try graph.batchInsert("Msg", rows: rows)
        let engine = Self.wall() - t
        // The rest of the wall time is mostly the server's (and waiting for it).
        let clientCPU = BenchmarkTests.now() - cpu
        #expect(c.count == n)
        let f = BenchmarkTests.fmt
        BenchmarkTests.report(
            "pg n=\(n) batchInsert with a live controller \(f(engine * 1000)) ms (\(Int(Double(n) / engine)) rows/s, this thread's CPU \(f(clientCPU * 1000)) ms) vs raw COPY \(f(rawTime * 1000)) ms (\(Int(Double(n) / rawTime)) rows/s): \(f(rawTime / engine))x of COPY's rows/s"
        )
    }
}
