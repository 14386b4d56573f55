import Model
import Postgres
import TestSupport
import Testing

@testable import Store

/// The agreement cases (StoreAgreement.swift) on a PostgreSQL schema (`make test-postgres`).
@Suite(.serialized) struct PGStoreAgreementTests {
    final class PGFixture: StoreFixture {
        let scratch: PGScratch
        init(_ name: String) throws { scratch = try PGScratch(name) }

        func open() throws -> any Store { try scratch.open() }
        func plain(_ sql: String) throws { _ = try scratch.client().exec(sql) }
        func scalar(_ sql: String) throws -> Int64? { try scratch.client().exec(sql).int64(0, 0) }
    }

    @Test(arguments: StoreAgreement.names)
    func agreementCase(_ name: String) throws {
        try StoreAgreement.run(name, try PGFixture("agree"))
    }
}
