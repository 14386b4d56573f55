import Foundation
import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// A store that holds its read snapshot across messages (`ReadSnapshots.held`, a server
/// with `--watch off`) and defers checkpoints: a write's checkpoint waits for the host's call
/// after the answer, runs while the snapshot is still held, and the WAL still starts over.
@Suite struct HeldSnapshotCheckpointTests {
    let dir = TempDir()
    var file: String { dir.file("held.sqlite") }

    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    func held() throws -> SQLiteStore {
        let store = try SQLiteStore.open(path: file, model: Models.contacts) { $0.deferCheckpoints(atPages: 100) }
        store.readSnapshots = .held
        try store.holdSnapshot()
        return store
    }

    /// About `count` rows of a few hundred bytes each, in one write.
    func insert(_ store: SQLiteStore, _ count: Int, from first: Int = 0) throws {
        var batch = StoreBatch()
        for i in first..<(first + count) {
            let id = try store.reserveID(for: "Group")
            batch.inserts.append((id, ["title": .string(String(repeating: "t\(i)", count: 250))]))
        }
        try store.write(batch)
    }

    @Test func theCheckpointWaitsForTheHostAndRunsUnderTheSnapshot() throws {
        let store = try held()
        let before = size(file)
        try insert(store, 1000)
        // The write ended: a snapshot is held again and nothing was copied into the file.
        #expect(store.snapshotHeld)
        #expect(size(file) == before)
        #expect(try store.connection.checkpointIsDue)
        store.checkpointIfDue()
        #expect(size(file) > before + 100 * 4096, "the checkpoint ran while the snapshot was held")
        #expect(store.snapshotHeld)
        #expect(try !store.connection.checkpointIsDue)
        #expect(try store.count(entity: "Group", filter: nil) == 1000)
    }

    @Test func aSecondConnectionOpenedForTheCheckpointCopiesToo() throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts) { $0.deferCheckpoints(atPages: 100) }
        // Numbers reserved before the snapshot: the second connection is opened by the checkpoint.
        var batch = StoreBatch()
        for i in 0..<1000 {
            batch.inserts.append(
                (try store.reserveID(for: "Group"), ["title": .string(String(repeating: "t\(i)", count: 250))]))
        }
        store.readSnapshots = .held
        try store.holdSnapshot()
        let before = size(file)
        try store.write(batch)
        #expect(store.sideHandle == nil)
        store.checkpointIfDue()
        #expect(store.sideHandle != nil)
        #expect(size(file) > before + 100 * 4096)
        try insert(store, 20, from: 1000)
        #expect(try walFrames() < 100)
    }

    /// How many frames the WAL holds now (SQLite's mxFrame), read by a plain connection's
    /// passive checkpoint.
    func walFrames() throws -> Int64 {
        let plain = try Connection(path: file)
        let s = try plain.prepareUncached("PRAGMA wal_checkpoint(PASSIVE)")
        _ = try s.step()
        return s.int64(1)
    }

    @Test func theWALStartsOverAfterACheckpointThatCopiedEverything() throws {
        let store = try held()
        try insert(store, 1000)
        #expect(try walFrames() > 250)
        store.checkpointIfDue()
        // Small writes after it go to the start of the WAL again, not after its 250 frames.
        for round in 0..<5 {
            try insert(store, 20, from: 1000 + round * 20)
            store.checkpointIfDue()
        }
        #expect(try walFrames() < 100)
        #expect(try store.count(entity: "Group", filter: nil) == 1100)
        #expect(store.snapshotHeld)
    }
}
