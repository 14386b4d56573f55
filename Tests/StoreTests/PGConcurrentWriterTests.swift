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

/// Writers on other connections at the same time (two stores and a plain client, each on its
/// own thread) while a reader follows the history by token: it must see every row exactly
/// once, so tokens are handed out in commit order.
@Suite(.serialized) struct PGConcurrentWriterTests {
    @Test func aReaderFollowingTokensMissesNothingWhileOthersWrite() throws {
        let scratch = try PGScratch("pgstore_concurrent")
        let reader = try scratch.open()
        defer { reader.close() }
        let url = scratch.url
        let schema = scratch.schema
        let done = Counter()
        let failures = Counter()
        let saves = 40
        for w in 0..<2 {
            Thread.detachNewThread {
                defer { done.add() }
                do {
                    let store = try PGStore.open(url: url, model: Models.contacts, schema: schema)
                    defer { store.close() }
                    store.busyTimeout = 20_000
                    for i in 0..<saves {
                        var batch = StoreBatch(author: "w\(w)")
                        for _ in 0..<(i % 3 + 1) {
                            batch.inserts.append(
                                (try store.reserveID(for: "Group"), ["title": .string("w\(w)-\(i)")]))
                        }
                        try store.write(batch)
                    }
                } catch { failures.add() }
            }
        }
        Thread.detachNewThread {
            defer { done.add() }
            do {
                let raw = try PGConnection(url)
                try raw.exec("SET search_path TO \(SchemaNaming.quoted(schema))")
                for i in 0..<saves {
                    try raw.exec("INSERT INTO \"Group\" (title) VALUES ('raw-\(i)'), ('raw-\(i)b')")
                    if i % 4 == 0 { try raw.exec("UPDATE \"Group\" SET title = title || '!' WHERE title LIKE 'raw-%'") }
                }
            } catch { failures.add() }
        }
        var token: Int64 = 0
        var seen: [Int64] = []
        var authored = 0
        while done.value < 3 {
            for t in try reader.history(after: token) {
                seen += t.rows.map(\.seq)
                token = t.token
                if t.author != nil { authored += 1 }
            }
        }
        for t in try reader.history(after: token) {
            seen += t.rows.map(\.seq)
            if t.author != nil { authored += 1 }
        }
        #expect(failures.value == 0)
        #expect(authored == 2 * saves)
        let all = try scratch.client().exec("SELECT seq FROM _fetchd_history ORDER BY seq").rows.map { Int64($0[0]!)! }
        #expect(seen == all)
        #expect(all == Array(1...Int64(all.count)))
        let perWriter = (0..<saves).reduce(0) { $0 + $1 % 3 + 1 }
        #expect(try reader.count(entity: "Group", filter: nil) == 2 * perWriter + 2 * saves)
    }
}

/// A thread-safe counter for the writer threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
