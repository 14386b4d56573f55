import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// The agreement cases (StoreAgreement.swift) on a SQLite file.
@Suite struct StoreAgreementTests {
    final class SQLiteFixture: StoreFixture {
        let dir = TempDir()
        var file: String { dir.file("agree.sqlite") }

        func open() throws -> any Store { try SQLiteStore.open(path: file, model: Models.contacts) }

        func plain(_ sql: String) throws {
            let db = try Connection(path: file)
            try db.execute("PRAGMA busy_timeout=2000")
            try db.execute(sql)
        }

        func scalar(_ sql: String) throws -> Int64? {
            let db = try Connection(path: file)
            let s = try db.prepareUncached(sql)
            guard try s.step(), !s.isNull(0) else { return nil }
            return s.int64(0)
        }
    }

    @Test(arguments: StoreAgreement.names)
    func agreementCase(_ name: String) throws {
        try StoreAgreement.run(name, SQLiteFixture())
    }
}
