import Foundation
import Postgres
import Testing

/// The throwaway cluster `make test-postgres` starts (scripts/pg-cluster.sh) and exports as
/// FETCHD_TEST_POSTGRES_URL. These suites are excluded from `make test-swift` and run only
/// there; run directly without the variable they fail loudly instead of passing unnoticed.
enum PGTestDatabase {
    static var url: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["FETCHD_TEST_POSTGRES_URL"], !url.isEmpty else {
                throw PGTestSetupError()
            }
            return url
        }
    }

    static func connect() throws -> PGConnection { try PGConnection(url) }

    /// A fresh schema (dropped and re-created) so suites running in parallel don't collide.
    static func freshSchema(_ connection: PGConnection, _ name: String) throws {
        try connection.exec("DROP SCHEMA IF EXISTS \(name) CASCADE; CREATE SCHEMA \(name); SET search_path TO \(name)")
    }
}

struct PGTestSetupError: Error, CustomStringConvertible {
    var description: String {
        "FETCHD_TEST_POSTGRES_URL is not set: run the PostgreSQL suites with `make test-postgres`"
    }
}
