import Contexts
import Model
import Postgres
import Store
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The controller oracles on PostgreSQL: contexts and controllers on a PGStore must answer
/// as on SQLite (each mirror equal to a fresh fetch after every cycle).
@Suite(.serialized) struct PGControllerOracleTests {
    /// A fresh schema for one test; `open` opens a store on it, all closed and dropped after.
    final class Schema {
        let url: String
        let name: String
        private var stores: [PGStore] = []

        init(_ name: String) throws {
            url = try TestPostgres.url()
            self.name = "\(name)_\(getpid())"
            try PGConnection(url).exec("SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(self.name) CASCADE")
        }

        deinit {
            for s in stores { s.close() }
            _ = try? PGConnection(url).exec("SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(name) CASCADE")
        }

        func open() throws -> any Store {
            let store = try PGStore.open(url: url, model: Library.model, schema: name)
            stores.append(store)
            return store
        }
    }

    @Test(arguments: [UInt64(21)])
    func randomCyclesOverContextsMatchFreshFetch(seed: UInt64) throws {
        let schema = try Schema("fetchd_oracle_contexts_\(seed)")
        try ContextOracleTests.randomCycles(seed: seed, store: try schema.open())
    }

    @Test(arguments: [UInt64(41)])
    func batchesReachEveryControllerAsOneCycle(seed: UInt64) throws {
        let schema = try Schema("fetchd_oracle_batches_\(seed)")
        try BatchOracleTests.batchCycles(seed: seed, store: try schema.open())
    }

    @Test(arguments: [UInt64(44)])
    func anotherProcesssBatchesMergeExactly(seed: UInt64) throws {
        let schema = try Schema("fetchd_oracle_other_\(seed)")
        try BatchOracleTests.otherProcessBatches(seed: seed, open: schema.open)
    }
}
