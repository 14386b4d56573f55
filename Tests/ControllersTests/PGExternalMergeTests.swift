import Contexts
import Model
import Postgres
import Store
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// ExternalMergeTests on PostgreSQL: two stores on one schema and a plain SQL client; after
/// every merge each controller's mirror equals a fresh fetch, each transaction merged once.
@Suite(.serialized) struct PGExternalMergeTests {
    @Test(arguments: [UInt64(31), 32])
    func controllersFollowOtherWritersExactlyOnce(seed: UInt64) throws {
        let url = try TestPostgres.url()
        let schema = "fetchd_external_merge_\(seed)_\(getpid())"
        let raw = try PGConnection(url)
        try raw.exec("SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(schema) CASCADE")
        defer { _ = try? raw.exec("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let a = ObjectGraph(store: try PGStore.open(url: url, model: Library.model, schema: schema))
        let b = ObjectGraph(store: try PGStore.open(url: url, model: Library.model, schema: schema))
        defer {
            a.store.close()
            b.store.close()
        }
        try raw.exec("SET search_path TO \(schema)")
        let client = ExternalMergeTests.RawClient(
            postgres: true, execute: { try raw.exec($0) },
            ids: { table in
                try raw.exec("SELECT _pk FROM \"\(table)\" ORDER BY _pk").rows.map { Int64($0[0]!)! }
            })
        try ExternalMergeTests.followOtherWriters(seed: seed, a, b, client)
    }
}
