import Foundation
import TestSupport
import Testing

/// The external-writers oracle (ExternalWritersTests) on a PostgreSQL dataset: two fetchd
/// processes on one schema of the test cluster, and `psql` as the plain client. A watches
/// with `auto`, so it is woken by the NOTIFY of each commit (protocol.md §5).
@Suite(.serialized) struct PGExternalWritersTests {
    /// Runs `sql` through psql in `schema`, one autocommitted statement per element; the
    /// non-empty output lines.
    static func psql(_ url: String, schema: String, _ statements: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url] + statements.flatMap { ["-c", $0] }
        var environment = ProcessInfo.processInfo.environment
        environment["PGOPTIONS"] = "-c search_path=\(schema) -c client_min_messages=warning"
        p.environment = environment
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TableMirror.Failure.bad("psql failed: \(statements)") }
        return text.split(separator: "\n").map(String.init)
    }

    /// A schema name no other run uses.
    static func freshSchema(_ prefix: String) -> String {
        "\(prefix)_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
    }

    /// `url` with the dataset's schema as fetchd's `schema` parameter.
    static func storeURL(_ url: String, schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
    }

    @Test func twoFetchdsAndPsqlOnOneSchema() throws {
        let url = try TestPostgres.url()
        let schema = Self.freshSchema("e2e_writers")
        defer { _ = try? Self.psql(url, schema: "public", ["DROP SCHEMA IF EXISTS \(schema) CASCADE"]) }
        let newest = "SELECT max(seq) FROM _fetchd_history"
        let plain = ExternalWritersTests.PlainClient(
            insert: { title, rank in
                let out = try Self.psql(
                    url, schema: schema,
                    [#"INSERT INTO "Note" ("title", "rank") VALUES ('\#(title)', \#(rank)) RETURNING "_pk""#, newest])
                guard out.count == 2, let row = Int64(out[0]), let token = Int64(out[1]) else {
                    throw TableMirror.Failure.bad("psql insert: \(out)")
                }
                return (token, row)
            },
            updateRank: { rank, pk in
                let out = try Self.psql(
                    url, schema: schema, [#"UPDATE "Note" SET "rank" = \#(rank) WHERE "_pk" = \#(pk)"#, newest])
                return out.last.flatMap { Int64($0) } ?? 0
            },
            delete: { pk in
                let out = try Self.psql(url, schema: schema, [#"DELETE FROM "Note" WHERE "_pk" = \#(pk)"#, newest])
                return out.last.flatMap { Int64($0) } ?? 0
            })
        try ExternalWritersTests.oracle(
            dir: TempDir(), store: Self.storeURL(url, schema: schema), watch: "auto", plain: plain)
    }

    /// The command line on a dataset: `exec --model` creates and fills it, `query` reads it
    /// back with the model the schema records (no `--model`), as for a file.
    @Test func execCreatesAndQueryReadsWithTheRecordedModel() throws {
        let url = try TestPostgres.url()
        let schema = Self.freshSchema("e2e_cli")
        defer { _ = try? Self.psql(url, schema: "public", ["DROP SCHEMA IF EXISTS \(schema) CASCADE"]) }
        let store = Self.storeURL(url, schema: schema)
        let dir = TempDir()
        let model = dir.file("model.json")
        try CLIStore.model.write(toFile: model, atomically: true, encoding: .utf8)
        let seeded = try FetchdProcess.run(
            ["exec", "-", "--store", store, "--model", model], input: CLIStore.seed.joined(separator: "\n") + "\n")
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let (output, stderr, status) = try FetchdProcess.run(
            ["query", "--store", store, "--entity", "Contact", "--sort", "-age", "--keys", "name,age"], input: "")
        #expect(status == 0, "\(stderr)")
        #expect(
            output == """
                {"id":"Contact/3","name":"Zoë","age":40}
                {"id":"Contact/1","name":"Ana","age":31}
                {"id":"Contact/2","name":"Bob \\"B\\"","age":25}

                """)
        let missing = try FetchdProcess.run(
            ["query", "--store", Self.storeURL(url, schema: schema + "_none"), "--entity", "Contact"], input: "")
        #expect(missing.status == 65, "a schema without a store is not a fetchd store: \(missing.stderr)")
    }
}
