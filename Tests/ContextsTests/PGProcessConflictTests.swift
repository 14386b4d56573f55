import Model
import Postgres
import Store
import TestSupport
import Testing

@testable import Contexts

#if canImport(Glibc)
    import Glibc
#endif

/// The cases on a PostgreSQL schema shared with a plain SQL client (`make test-postgres`).
final class PGSharedSchema: SharedStoreFixture {
    let url: String
    let schema: String
    let raw: PGConnection
    private var stores: [PGStore] = []

    init(_ name: String) throws {
        url = try TestPostgres.url()
        schema = "\(name)_\(getpid())"
        raw = try PGConnection(url)
        try raw.exec(
            "SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(schema) CASCADE; SET search_path TO \(schema)")
    }

    deinit {
        for s in stores { s.close() }
        _ = try? raw.exec("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }

    func open() throws -> any Store {
        let store = try PGStore.open(url: url, model: Fixture.model, schema: schema)
        stores.append(store)
        return store
    }

    func plain(_ sql: String) throws { try raw.exec(sql) }

    /// Another session inside a write: it holds the writers' advisory lock until its commit.
    func holdLock() throws -> () throws -> Void {
        let other = try PGConnection(url)
        try other.exec("SET search_path TO \(schema); BEGIN; UPDATE \"Group\" SET title = title")
        return { try other.exec("COMMIT") }
    }

    func plainInsertContact(_ name: String) throws -> Int64 {
        try raw.exec("INSERT INTO \"Contact\" (name, age) VALUES ($1, 1) RETURNING _pk", [.text(name)]).int64(0, 0)!
    }

    func plainCount(_ table: String) throws -> Int64 {
        try raw.exec("SELECT count(*) FROM \"\(table)\"").int64(0, 0)!
    }
}

@Suite(.serialized) struct PGProcessConflictTests {
    @Test func scriptCommitSinceTheReadIsAMergeConflict() throws {
        try ProcessConflictCases.scriptCommitSinceTheReadIsAMergeConflict(PGSharedSchema("fetchd_conflict_script"))
    }

    @Test func objectTrumpKeepsTheScriptsKeyAndOurs() throws {
        try ProcessConflictCases.objectTrumpKeepsTheScriptsKeyAndOurs(PGSharedSchema("fetchd_conflict_trump"))
    }

    @Test func anotherStoresSaveIsAConflictToo() throws {
        try ProcessConflictCases.anotherStoresSaveIsAConflictToo(PGSharedSchema("fetchd_conflict_store"))
    }

    @Test func heldLockIsStoreBusyAndTheContextStaysIntact() throws {
        try ProcessConflictCases.heldLockIsStoreBusyAndTheContextStaysIntact(PGSharedSchema("fetchd_conflict_busy"))
    }

    @Test func insertsOfScriptsAndStoresNeverCollide() throws {
        try ProcessConflictCases.insertsOfScriptsAndStoresNeverCollide(PGSharedSchema("fetchd_conflict_ids"))
    }
}
