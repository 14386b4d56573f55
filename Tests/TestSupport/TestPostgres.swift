import Foundation

/// The throwaway PostgreSQL cluster `make test-postgres` starts (scripts/pg-cluster.sh) and
/// exports as FETCHD_TEST_POSTGRES_URL. Suites that need it are listed in the Makefile's
/// POSTGRES_TEST_FILTER: `make test-swift` skips exactly those and `make test-postgres` runs
/// them; run without the variable they fail loudly instead of passing unnoticed.
public enum TestPostgres {
    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String {
            "FETCHD_TEST_POSTGRES_URL is not set: run the PostgreSQL suites with `make test-postgres`"
        }
    }

    /// The cluster's connection URL; throws `NotConfigured` when it is not set.
    public static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["FETCHD_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw NotConfigured()
        }
        return url
    }
}
