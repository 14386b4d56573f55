import Model
import Postgres
import Testing

@testable import Store

/// Ids ahead of need on PostgreSQL (protocol.md §5, "A PostgreSQL server", Ids): a block in use gets
/// the next one as its spare in a save, or when its spare is started and the writers' lock is
/// free, so a session inserts while another holds the lock. Only a session's first insert of
/// an entity, and one past its block and spare, wait for the lock.
@Suite(.serialized) struct PGIDsAheadOfNeedTests {
    /// Another session holding the writers' lock until it rolls back.
    private func holdLock(_ scratch: PGScratch) throws -> PGConnection {
        let c = try scratch.client()
        try c.exec("BEGIN")
        try c.exec(
            "SELECT pg_advisory_xact_lock(\(PGHistorySchema.lockClass), hashtext('\(scratch.schema)'))")
        return c
    }

    /// The store, failing at once where an insert would wait for the lock.
    private func store(_ scratch: PGScratch) throws -> PGStore {
        let store = try scratch.open()
        store.busyTimeout = 1
        return store
    }

    /// A Tag inserted and saved: its first block (16) in use, and whatever the save took.
    private func saveOneTag(_ store: PGStore) throws -> ObjectID {
        let first = try store.reserveID(for: "Tag")
        try store.write(StoreBatch(inserts: [(first, ["label": .string("t")])]))
        return first
    }

    private func expectBusy(_ store: PGStore, _ entity: String) {
        let busy = #expect(throws: EngineError.self) { try store.reserveID(for: entity) }
        #expect(busy?.kind == .storeBusy)
    }

    @Test func aSaveGivesABlockInUseItsSpare() throws {
        let scratch = try PGScratch("pgids_save")
        let store = try store(scratch)
        defer { store.close() }
        let first = try saveOneTag(store)
        let other = try holdLock(scratch)
        defer { _ = try? other.exec("ROLLBACK") }
        // The 15 left of the first block, then the 32 of the spare the save took.
        let more = try (0..<47).map { _ in try store.reserveID(for: "Tag").number }
        #expect(more == Array(first.number + 1...first.number + 47))
        expectBusy(store, "Tag")
        // Nothing was taken by the refused insert: the next number follows once the lock is free.
        _ = try other.exec("ROLLBACK")
        #expect(try store.reserveID(for: "Tag").number == first.number + 48)
    }

    @Test func startingASpareTakesTheNextWhileTheLockIsFree() throws {
        let scratch = try PGScratch("pgids_free")
        let store = try store(scratch)
        defer { store.close() }
        let first = try saveOneTag(store)
        // The first number of the spare takes the next block (64) as the new spare.
        let started = try (0..<16).map { _ in try store.reserveID(for: "Tag").number }
        #expect(started.last == first.number + 16)
        let other = try holdLock(scratch)
        defer { _ = try? other.exec("ROLLBACK") }
        let more = try (0..<95).map { _ in try store.reserveID(for: "Tag").number }
        #expect(more == Array(first.number + 17...first.number + 111))
        expectBusy(store, "Tag")
    }

    /// Before its first block, a session's insert of an entity takes one under the lock.
    @Test func aFirstInsertWaitsForTheLock() throws {
        let scratch = try PGScratch("pgids_first")
        let store = try store(scratch)
        defer { store.close() }
        let other = try holdLock(scratch)
        defer { _ = try? other.exec("ROLLBACK") }
        expectBusy(store, "Tag")
    }

    /// A spare taken while the lock is held elsewhere waits for no one: the store skips it and
    /// takes it in its next save.
    @Test func aBusyLockLeavesTheSpareToTheNextSave() throws {
        let scratch = try PGScratch("pgids_busy")
        let store = try store(scratch)
        defer { store.close() }
        _ = try saveOneTag(store)
        let other = try holdLock(scratch)
        // Into the spare while the lock is held: no new spare.
        _ = try (0..<16).map { _ in try store.reserveID(for: "Tag") }
        #expect(store.idQueues["Tag"]?.spare == nil)
        _ = try other.exec("ROLLBACK")
        let id = try store.reserveID(for: "Contact")
        try store.write(StoreBatch(inserts: [(id, ["name": .string("c"), "age": .integer(1)])]))
        #expect(store.idQueues["Tag"]?.spare?.count == 64)
    }
}
