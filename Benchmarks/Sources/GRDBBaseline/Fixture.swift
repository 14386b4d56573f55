import Foundation
import GRDB

/// One ordered row of the observed query: what a controller keeps per object.
struct IdKey: FetchableRecord, Hashable, Sendable {
    var id: Int64
    var ts: Int64

    init(row: Row) throws {
        id = row[0]
        ts = row[1]
    }
}

/// The benchmark table, built from the shared workload in a scratch file. The same pragmas
/// as every other baseline: WAL, synchronous=NORMAL, a 64 MiB page cache.
enum Fixture {
    static let orderedIdsAndKeys = "SELECT id, ts FROM msg ORDER BY ts, id"
    static let pragmas = ["PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -65536"]

    static func path(directory: String, rows n: Int) -> String {
        "\(directory)/grdb-\(n).sqlite"
    }

    static func create(directory: String, rows n: Int) throws -> DatabaseQueue {
        let file = path(directory: directory, rows: n)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: file + suffix)
        }
        var config = Configuration()
        config.journalMode = .wal
        config.prepareDatabase { db in
            for pragma in pragmas { try db.execute(sql: pragma) }
        }
        let queue = try DatabaseQueue(path: file, configuration: config)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE msg(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,
                                     sender TEXT NOT NULL, body TEXT NOT NULL)
                    """)
            let insert = try db.makeStatement(sql: "INSERT INTO msg(id, ts, sender, body) VALUES (?, ?, ?, ?)")
            for row in Workload.rows(count: n) {
                try insert.execute(arguments: [row.id, row.ts, row.sender, row.body])
            }
            // Built after the load: the usual fast path, and the index the ordered query scans.
            try db.execute(sql: "CREATE INDEX msg_ts ON msg(ts, id)")
        }
        return queue
    }
}
