import Model
import Testing

@testable import Store

/// A store of one dialect for the agreement cases: opened on one dataset as often as a case
/// needs (several processes), and a plain SQL client on it.
protocol StoreFixture {
    func open() throws -> any Store
    /// Plain SQL statements, committed at once (no fetchd code: a script).
    func plain(_ sql: String) throws
    /// The first column of the first row, or nil.
    func scalar(_ sql: String) throws -> Int64?
}

/// What the store core promises whichever dialect is behind it (Store/Core): every case runs
/// on SQLite (`StoreAgreementTests`) and on PostgreSQL (`PGStoreAgreementTests`) from this
/// one list.
enum StoreAgreement {
    static let cases: [String: @Sendable (any StoreFixture) throws -> Void] = [
        "round trip": { f in try StoreRoundTrip.writesAndReadsObjectsWithRelationships(try f.open()) },
        "plain writes bump versions": plainWritesBumpVersions,
        "history lists a plain run once": historyListsAPlainRunOnce,
        "the prior view undoes merged transactions": priorViewUndoesMergedTransactions,
        "just written rows answer reads": justWrittenRowsAnswerReads,
        "purge keeps what live readers need": purgeKeepsWhatLiveReadersNeed,
        "ids are never handed out twice": idsAreNeverHandedOutTwice,
        "a held snapshot hides later commits": heldSnapshotHidesLaterCommits,
    ]
    static var names: [String] { cases.keys.sorted() }

    static func run(_ name: String, _ fixture: any StoreFixture) throws {
        let body = try #require(cases[name])
        try body(fixture)
    }

    static let c1 = StoreRoundTrip.c1

    static func plainWritesBumpVersions(_ f: any StoreFixture) throws {
        let store = try f.open()
        defer { store.close() }
        try StoreRoundTrip.seed(store)
        try f.plain("UPDATE \"Contact\" SET age = 31 WHERE _pk = 1")
        #expect(try store.version(of: c1) == 2)
        // A writer that raises the version itself is not raised twice.
        try f.plain("UPDATE \"Contact\" SET age = 32, _version = _version + 1 WHERE _pk = 1")
        #expect(try store.version(of: c1) == 3)
        #expect(try store.read(c1)?.values["age"] == .integer(32))
    }

    static func historyListsAPlainRunOnce(_ f: any StoreFixture) throws {
        let store = try f.open()
        defer { store.close() }
        try StoreRoundTrip.seed(store, author: "seed")
        let start = try store.currentToken
        #expect(try !store.hasExternalChanges())
        try f.plain("UPDATE \"Contact\" SET name = 'Ana B' WHERE _pk = 1")
        #expect(try store.hasExternalChanges())
        let read = try store.history(after: start)
        #expect(read.count == 1)
        #expect(read.first?.isExternalClient == true)
        #expect(read.first?.changes.map(\.id) == [c1])
        #expect(read.first?.changes.first?.keys == ["name"])
        #expect(try !store.hasExternalChanges())
        #expect(try store.history(after: read[0].token).isEmpty)
        #expect(try store.firstToken(notBefore: 4_000_000_000) == (try store.currentToken) + 1)
    }

    static func priorViewUndoesMergedTransactions(_ f: any StoreFixture) throws {
        let store = try f.open()
        defer { store.close() }
        try StoreRoundTrip.seed(store)
        let start = try store.currentToken
        try f.plain("UPDATE \"Contact\" SET age = 40 WHERE _pk = 1")
        let prior = try store.priorObjects(try store.history(after: start))
        #expect(prior[c1]??.values["age"] == .integer(30))
        #expect(prior[c1]??.version == 1)
        store.overlay = prior
        #expect(try store.read(c1)?.values["age"] == .integer(30))
        #expect(try store.version(of: c1) == 1)
        store.overlay = nil
        #expect(try store.read(c1)?.values["age"] == .integer(40))
    }

    static func justWrittenRowsAnswerReads(_ f: any StoreFixture) throws {
        let store = try f.open()
        defer { store.close() }
        try StoreRoundTrip.seed(store)
        var row = try #require(try store.read(c1))
        row.values["name"] = .string("as written")
        store.justWritten = JustWritten(rows: [(c1, row)])
        #expect(try store.read(c1)?.values["name"] == .string("as written"))
        store.justWritten = nil
        #expect(try store.read(c1)?.values["name"] == .string("Ana"))
    }

    static func purgeKeepsWhatLiveReadersNeed(_ f: any StoreFixture) throws {
        let store = try f.open()
        defer { store.close() }
        try StoreRoundTrip.seed(store)
        // Another reader, live from here on, has merged nothing after this point.
        let reader = try f.open()
        defer { reader.close() }
        reader.recordCursorIfDue()
        let kept = try reader.currentToken
        try f.plain("UPDATE \"Contact\" SET age = 41 WHERE _pk = 1")
        try f.plain("UPDATE \"Contact\" SET age = 42 WHERE _pk = 1")
        store.mergeCursor = try store.currentToken
        _ = try store.purgeHistory(before: .max, force: false)
        #expect(try (store.oldestToken ?? 0) <= kept + 1)
        #expect(try !reader.historyGap(after: kept))
        _ = try store.purgeHistory(before: .max, force: true)
        // The newest row always stays: tokens keep rising.
        #expect(try store.oldestToken == (try store.currentToken))
        #expect(try reader.historyGap(after: kept))
    }

    static func idsAreNeverHandedOutTwice(_ f: any StoreFixture) throws {
        let a = try f.open()
        let b = try f.open()
        defer {
            a.close()
            b.close()
        }
        var seen: Set<Int64> = []
        for _ in 0..<60 {
            #expect(seen.insert(try a.reserveID(for: "Contact").number).inserted)
            #expect(seen.insert(try b.reserveID(for: "Contact").number).inserted)
        }
        let run = try a.reserveIDs(for: "Contact", count: 100)
        #expect(run.count == 100)
        #expect(seen.isDisjoint(with: Set(run)))
        try f.plain("INSERT INTO \"Contact\" (name, age) VALUES ('plain', 1)")
        let plain = try #require(try f.scalar("SELECT max(_pk) FROM \"Contact\""))
        #expect(!seen.contains(plain) && !run.contains(plain))
    }

    static func heldSnapshotHidesLaterCommits(_ f: any StoreFixture) throws {
        let store = try f.open()
        defer { store.close() }
        try StoreRoundTrip.seed(store)
        store.readSnapshots = .held
        try store.holdSnapshot()
        try f.plain("INSERT INTO \"Group\" (title) VALUES ('later')")
        #expect(try store.count(entity: "Group", filter: nil) == 1)
        #expect(try !store.hasExternalChanges())
        try store.renewSnapshot()
        #expect(try store.count(entity: "Group", filter: nil) == 2)
        #expect(try store.hasExternalChanges())
        // Reading the log goes past the snapshot; a write ends it and takes a new one.
        #expect(try store.newestToken == (try store.currentToken))
        try f.plain("INSERT INTO \"Group\" (title) VALUES ('latest')")
        #expect(try store.newestToken > (try store.currentToken))
        try store.write(StoreBatch(inserts: [(try store.reserveID(for: "Tag"), ["label": .string("t")])]))
        #expect(try store.count(entity: "Group", filter: nil) == 3)
    }
}
