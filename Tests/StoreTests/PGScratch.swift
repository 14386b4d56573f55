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

/// A schema of its own on the test cluster (`make test-postgres`), dropped when done.
final class PGScratch {
    let schema: String
    let url: String

    init(_ name: String) throws {
        schema = "\(name)_\(getpid())"
        url = try TestPostgres.url()
        try Self.drop(url, schema)
    }

    deinit { try? Self.drop(url, schema) }

    static func drop(_ url: String, _ schema: String) throws {
        let c = try PGConnection(url)
        try c.exec("SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(SchemaNaming.quoted(schema)) CASCADE")
    }

    func open(_ model: ObjectModel = Models.contacts) throws -> PGStore {
        try PGStore.open(url: url, model: model, schema: schema)
    }

    /// A plain SQL client on the schema.
    func client() throws -> PGConnection {
        let c = try PGConnection(url)
        try c.exec("SET search_path TO \(SchemaNaming.quoted(schema))")
        return c
    }
}
