import Model
import Postgres
import TestSupport

@testable import Predicates

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `Library`'s objects copied into PostgreSQL (tables as SchemaNaming names them, columns
/// typed as `PGValueEncoding` lays them out), in a schema of their own with `PGFunctions` set
/// up once; every query runs here and in memory.
final class PGLibrary {
    let db: PGConnection
    let schema: String

    /// `schema` gets the process id appended, so concurrent runs never share tables.
    init(schema name: String) throws {
        schema = "\(name)_\(getpid())"
        db = try PGConnection(TestPostgres.url())
        try db.exec("DROP SCHEMA IF EXISTS \(schema) CASCADE; CREATE SCHEMA \(schema); SET search_path TO \(schema)")
        for statement in PGFunctions.setupStatements { try db.exec(statement) }
        for e in Library.model.entities {
            var columns = ["\"_pk\" bigint PRIMARY KEY", "\"_version\" bigint NOT NULL DEFAULT 0"]
            columns += e.attributes.map { "\(SchemaNaming.quoted($0.name)) \(PGValueEncoding.columnType($0.type))" }
            columns += e.relationships.filter { !$0.toMany }.map { "\(SchemaNaming.quoted($0.name)) bigint" }
            try db.exec("CREATE TABLE \(SchemaNaming.quoted(e.name)) (\(columns.joined(separator: ", ")))")
        }
        try db.exec(
            "CREATE TABLE \"_join_Author_tags\" (\"a\" bigint NOT NULL, \"b\" bigint NOT NULL, PRIMARY KEY (\"a\", \"b\"))"
        )
    }

    deinit { _ = try? db.exec("DROP SCHEMA IF EXISTS \(schema) CASCADE") }

    /// Replaces every row with the library's objects.
    func load(_ l: Library) throws {
        try db.exec("TRUNCATE \"Author\", \"Book\", \"Tag\", \"_join_Author_tags\"")
        for e in Library.model.entities {
            let stored = e.attributes.map(\.name) + e.relationships.filter { !$0.toMany }.map(\.name)
            for id in l.ids(e.name) {
                let values = l.objects[id]!
                let marks = (1...stored.count + 1).map { "$\($0)" }.joined(separator: ", ")
                let params: [PGValue?] =
                    [.int(id.number)] + stored.map { PGValueEncoding.parameter(values[$0] ?? .null).map(PGValue.text) }
                try db.exec(
                    "INSERT INTO \(SchemaNaming.quoted(e.name)) (\"_pk\", \(stored.map(SchemaNaming.quoted).joined(separator: ", "))) VALUES (\(marks))",
                    params)
                if e.name == "Author", case .objects(let tags)? = values["tags"] {
                    for t in tags {
                        try db.exec(
                            "INSERT INTO \"_join_Author_tags\" (\"a\", \"b\") VALUES ($1, $2)",
                            [.int(id.number), .int(t.number)])
                    }
                }
            }
        }
    }

    /// The ids PostgreSQL selects; throws `PGUnsupported` when the generator refuses.
    func matches(_ compiled: CompiledRequest) throws -> [Int64] {
        let filter = try PGQuery.filter(compiled.filter, alias: "t")
        let result = try db.exec(
            "SELECT t.\"_pk\" FROM \(SchemaNaming.quoted(compiled.request.entity)) AS t WHERE \(filter.text) ORDER BY t.\"_pk\"",
            filter.bindings.map { PGValueEncoding.parameter($0).map(PGValue.text) })
        return (0..<result.count).map { result.int64($0, 0)! }
    }

    /// Every object in ORDER BY order (ids break ties), and the keys PostgreSQL selected.
    func order(_ compiled: CompiledRequest) throws -> (ids: [Int64], keys: [SortKey]) {
        let order = try PGQuery.orderBy(compiled.ordering, alias: "t")
        let columns = try PGQuery.keyColumns(compiled.ordering, alias: "t")
        let select = (["t.\"_pk\""] + columns.map(\.text)).joined(separator: ", ")
        let orderText = order.text.isEmpty ? "t.\"_pk\"" : order.text + ", t.\"_pk\""
        let result = try db.exec(
            "SELECT \(select) FROM \(SchemaNaming.quoted(compiled.request.entity)) AS t ORDER BY \(orderText)")
        var ids: [Int64] = []
        var keys: [SortKey] = []
        for row in result.rows {
            ids.append(Int64(row[0]!)!)
            keys.append(PGQuery.key(compiled.ordering, fromColumns: Array(row.dropFirst())))
        }
        return (ids, keys)
    }
}
