import Foundation
import Model
import Postgres
import Predicates
import TestSupport
import Testing

@testable import Store

#if canImport(Glibc)
    import Glibc
#endif

/// The store's backend terminated while its COMMIT waits (protocol.md §5, "A COMMIT without an
/// answer"): the answer to the COMMIT is lost, and the store tells from its transaction's token
/// row what became of it. The commit is held at a known point as in `scripts/test-pg-faults.sh` (cases
/// a3, a4): after its commit record, waiting for a synchronous standby that does not exist
/// (`synchronous_standby_names` is set for the test; only the store's session commits
/// synchronously, the test cluster's default being `synchronous_commit = off`), or before it,
/// in a deferred foreign-key check waiting on a row lock.
@Suite(.serialized) struct PGLostCommitTests {
    let c1 = StoreRoundTrip.c1
    let g1 = StoreRoundTrip.g1

    /// The store's URL: its session commits synchronously; `user` replaces the URL's own.
    private static func storeURL(_ scratch: PGScratch, user: String? = nil) -> String {
        scratch.url + "&options=-c%20synchronous_commit%3Don" + (user.map { "&user=\($0)" } ?? "")
    }

    private static let standby = "fetchd_lost_commit_no_such_standby"

    /// Requires a synchronous standby that does not exist, until the returned closure runs;
    /// `store`'s session has read the setting when this returns.
    private static func requireStandby(_ admin: PGConnection, _ store: PGStore) throws -> () -> Void {
        try admin.exec("ALTER SYSTEM SET synchronous_standby_names = '\(standby)'")
        try admin.exec("SELECT pg_reload_conf()")
        let reset = {
            _ = try? admin.exec("ALTER SYSTEM RESET synchronous_standby_names")
            _ = try? admin.exec("SELECT pg_reload_conf()")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try store.db().exec("SHOW synchronous_standby_names").rows.first?.first != standby {
            guard ContinuousClock.now < deadline else {
                reset()
                throw EngineError(.storeError, "the store's session never read synchronous_standby_names")
            }
            usleep(10_000)
        }
        do { try awaitWaitingCommits(url: store.connection!.conninfo, admin) } catch {
            reset()
            throw error
        }
        return reset
    }

    /// A commit waits for the standby only once the checkpointer, not only the committing
    /// session, has read the setting: the checkpointer publishes it to all sessions, and a busy
    /// machine can delay its reload past the session's. Returns once a probe's commit waited
    /// (and cancels that wait: the probe's commit stands, as it does on a cancel).
    private static func awaitWaitingCommits(url: String, _ admin: PGConnection) throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let probe = try ProbeCommit(url: url)
            while !probe.finished(withinMilliseconds: 5) {
                let waiting = try admin.exec(
                    "SELECT 1 FROM pg_stat_activity WHERE pid = \(probe.pid) AND wait_event = 'SyncRep'")
                if waiting.count > 0 {
                    try admin.exec("SELECT pg_cancel_backend(\(probe.pid))")
                    _ = probe.finished(withinMilliseconds: 10_000)
                    return
                }
            }
            usleep(20_000)
        }
        throw EngineError(.storeError, "commits never waited for the missing standby")
    }

    /// A commit that writes to the log, on a session and thread of its own.
    private final class ProbeCommit: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        let pid: Int32

        init(url: String) throws {
            nonisolated(unsafe) let c = try PGConnection(url)
            pid = c.backendPID
            Thread.detachNewThread { [done] in
                _ = try? c.exec("BEGIN; CREATE TEMP TABLE fetchd_probe (x int); COMMIT")
                c.close()
                done.signal()
            }
        }

        func finished(withinMilliseconds ms: Int) -> Bool {
            done.wait(timeout: .now() + .milliseconds(ms)) == .success
        }
    }

    /// On a thread: terminates backend `pid` once it waits as `condition` (SQL on
    /// pg_stat_activity's row) says, running `first` before. `join` answers whether it did.
    private final class Killer: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var terminated = false

        init(url: String, pid: Int32, when condition: String, first: String? = nil) {
            Thread.detachNewThread { [self] in
                defer { done.signal() }
                guard let c = try? PGConnection(url) else { return }
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline {
                    let waiting = try? c.exec(
                        "SELECT 1 FROM pg_stat_activity WHERE pid = \(pid) AND state = 'active' AND \(condition)")
                    if let waiting, waiting.count > 0 {
                        if let first { _ = try? c.exec(first) }
                        let r = try? c.exec("SELECT pg_terminate_backend(\(pid))")
                        lock.withLock { terminated = r?.rows.first?.first == "t" }
                        return
                    }
                    usleep(5_000)
                }
            }
        }

        func join() -> Bool {
            done.wait()
            return lock.withLock { terminated }
        }
    }

    private func update(_ store: PGStore, _ name: String) throws {
        try store.write(StoreBatch(updates: [(c1, ["name": .string(name), "age": .integer(1)])]))
    }

    @Test func aCommitRecordWrittenBeforeTheConnectionBrokeIsASuccessfulSave() throws {
        let scratch = try PGScratch("pgstore_lostcommit_ok")
        var logged: [String] = []
        let store = try PGStore.open(url: Self.storeURL(scratch), model: Models.contacts, schema: scratch.schema) {
            logged.append($0)
        }
        defer { store.close() }
        try StoreRoundTrip.seed(store, author: "seed")
        let admin = try scratch.client()
        let resetStandby = try Self.requireStandby(admin, store)
        defer { resetStandby() }
        let old = store.connection!.backendPID
        try store.beginWrite(author: "lost")
        try update(store, "Saved")
        let killer = Killer(url: scratch.url, pid: old, when: "wait_event = 'SyncRep'")
        try store.commitWrite()
        #expect(killer.join())
        resetStandby()
        #expect(!store.isWriting)
        #expect(store.connection!.backendPID != old)
        #expect(try store.read(c1)?.values["name"] == .string("Saved"))
        #expect(try store.history(after: 0).filter { $0.author == "lost" }.count == 1)
        #expect(logged.contains { $0.contains("the transaction is in the store") })
        // The next write goes on as usual on the new session.
        try update(store, "Next")
        #expect(try store.read(c1)?.values["name"] == .string("Next"))
    }

    /// A write in a transaction of its own (`write` begins and commits it, as batch requests'
    /// writes do): the same.
    @Test func aWriteOfItsOwnWhoseCommitLostItsAnswerSucceeds() throws {
        let scratch = try PGScratch("pgstore_lostcommit_batch")
        let store = try PGStore.open(url: Self.storeURL(scratch), model: Models.contacts, schema: scratch.schema)
        defer { store.close() }
        try StoreRoundTrip.seed(store, author: "seed")
        let admin = try scratch.client()
        let resetStandby = try Self.requireStandby(admin, store)
        defer { resetStandby() }
        let old = store.connection!.backendPID
        let id = try store.reserveID(for: "Group")
        let killer = Killer(url: scratch.url, pid: old, when: "wait_event = 'SyncRep'")
        try store.write(StoreBatch(inserts: [(id, ["title": .string("Batch")])], author: "batch"))
        #expect(killer.join())
        resetStandby()
        #expect(!store.isWriting)
        #expect(store.connection!.backendPID != old)
        #expect(try store.read(id)?.values["title"] == .string("Batch"))
        #expect(try store.history(after: 0).filter { $0.author == "batch" }.count == 1)
    }

    @Test func aCommitThatFailedBeforeItsRecordWroteNothing() throws {
        let scratch = try PGScratch("pgstore_lostcommit_none")
        let store = try PGStore.open(url: Self.storeURL(scratch), model: Models.contacts, schema: scratch.schema)
        defer { store.close() }
        try StoreRoundTrip.seed(store, author: "seed")
        let holder = try scratch.client()
        try holder.exec("BEGIN")
        try holder.exec("SELECT 1 FROM \"Group\" WHERE _pk = 1 FOR UPDATE")
        let old = store.connection!.backendPID
        let id = try store.reserveID(for: "Contact")
        try store.beginWrite(author: "lost")
        try store.write(
            StoreBatch(inserts: [(id, ["name": .string("New"), "age": .integer(2), "group": .object(g1)])]))
        let killer = Killer(
            url: scratch.url, pid: old, when: "wait_event_type = 'Lock' AND upper(query) LIKE 'COMMIT%'")
        do {
            try store.commitWrite()
            Issue.record("a COMMIT terminated in its foreign-key check answered success")
        } catch {
            #expect(error.kind == .storeUnavailable)
            #expect(error.message.contains("nothing was written"))
            #expect(error.detail("outcome") == nil)
        }
        #expect(killer.join())
        try holder.exec("ROLLBACK")
        #expect(!store.isWriting)
        // Checked on a new session already: the store answers at once.
        #expect(store.connection!.isConnected)
        #expect(try store.read(id) == nil)
        #expect(try store.history(after: 0).allSatisfy { $0.author != "lost" })
    }

    @Test func anUncheckableCommitIsUnavailableWithAnUnknownOutcome() throws {
        let scratch = try PGScratch("pgstore_lostcommit_unknown")
        let admin = try scratch.client()
        let role = "fetchd_lostcommit_\(getpid())"
        try admin.exec(
            "SET client_min_messages = warning; DROP ROLE IF EXISTS \(role); CREATE ROLE \(role) LOGIN SUPERUSER")
        defer {
            _ = try? PGScratch.drop(scratch.url, scratch.schema)
            _ = try? admin.exec("DROP ROLE IF EXISTS \(role)")
        }
        let store = try PGStore.open(
            url: Self.storeURL(scratch, user: role), model: Models.contacts, schema: scratch.schema)
        defer { store.close() }
        try StoreRoundTrip.seed(store, author: "seed")
        let resetStandby = try Self.requireStandby(admin, store)
        defer { resetStandby() }
        try store.beginWrite(author: "lost")
        try update(store, "Maybe")
        // The role may no longer log in: the store cannot reconnect to check.
        let killer = Killer(
            url: scratch.url, pid: store.connection!.backendPID, when: "wait_event = 'SyncRep'",
            first: "ALTER ROLE \(role) NOLOGIN")
        do {
            try store.commitWrite()
            Issue.record("a COMMIT whose outcome could not be checked answered success")
        } catch {
            #expect(error.kind == .storeUnavailable)
            #expect(error.detail("outcome") == .string("unknown"))
            #expect(!error.message.contains("nothing was written"))
        }
        #expect(killer.join())
        resetStandby()
        #expect(!store.isWriting)
        try admin.exec("ALTER ROLE \(role) LOGIN")
        // Once the server can be reached again (after the backoff): it had committed.
        var name: Value?
        let deadline = ContinuousClock.now + .seconds(10)
        while name == nil, ContinuousClock.now < deadline {
            do { name = try store.read(c1)?.values["name"] } catch {
                #expect(error.kind == .storeUnavailable)
                usleep(20_000)
            }
        }
        #expect(name == .string("Maybe"))
    }
}
