import Postgres
import TestSupport

/// Connections to the test cluster (TestSupport's `TestPostgres`).
enum PGTestDatabase {
    static var url: String { get throws { try TestPostgres.url() } }

    static func connect() throws -> PGConnection { try PGConnection(url) }

    /// A fresh schema (dropped and re-created) so suites running in parallel don't collide.
    static func freshSchema(_ connection: PGConnection, _ name: String) throws {
        try connection.exec("DROP SCHEMA IF EXISTS \(name) CASCADE; CREATE SCHEMA \(name); SET search_path TO \(name)")
    }
}
