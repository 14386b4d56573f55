import Model
import SQLite

@testable import Predicates

/// A test model (authors, books, tags) stored twice: in SQLite tables laid out as
/// SchemaNaming describes, and as snapshots behind an ObjectView. Every query runs both ways.
final class Library: ObjectView {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Author",
            attributes: [
                Attribute(name: "name", type: .string, optional: true),
                Attribute(name: "age", type: .integer, optional: true),
                Attribute(name: "rating", type: .double, optional: true),
                Attribute(name: "active", type: .boolean, optional: true),
                Attribute(name: "born", type: .date, optional: true),
                Attribute(name: "code", type: .uuid, optional: true),
                Attribute(name: "photo", type: .binary, optional: true),
            ],
            relationships: [
                Relationship(name: "books", destination: "Book", toMany: true, inverse: "author"),
                Relationship(name: "tags", destination: "Tag", toMany: true, inverse: "authors"),
                Relationship(name: "mentor", destination: "Author", toMany: false, inverse: "mentees"),
                Relationship(name: "mentees", destination: "Author", toMany: true, inverse: "mentor"),
            ]),
        Entity(
            name: "Book",
            attributes: [
                Attribute(name: "title", type: .string, optional: true),
                Attribute(name: "pages", type: .integer, optional: true),
                Attribute(name: "price", type: .double, optional: true),
            ],
            relationships: [
                Relationship(name: "author", destination: "Author", toMany: false, inverse: "books")
            ]),
        Entity(
            name: "Tag",
            attributes: [
                Attribute(name: "name", type: .string, optional: true)
            ],
            relationships: [
                Relationship(name: "authors", destination: "Author", toMany: true, inverse: "tags")
            ]),
    ])

    let db: Connection
    let compiler = RequestCompiler(model: Library.model)
    private(set) var objects: [ObjectID: Snapshot] = [:]
    private var next: [String: Int64] = [:]

    init() throws {
        db = try Connection()
        try SQLFunctions.register(on: db)
        try db.execute(
            """
            CREATE TABLE "Author" ("_pk" INTEGER PRIMARY KEY, "_version" INTEGER NOT NULL DEFAULT 0, "name" TEXT,
              "age" INTEGER, "rating" REAL, "active" INTEGER, "born" REAL, "code" TEXT, "photo" BLOB, "mentor" INTEGER);
            CREATE TABLE "Book" ("_pk" INTEGER PRIMARY KEY, "_version" INTEGER NOT NULL DEFAULT 0, "title" TEXT,
              "pages" INTEGER, "price" REAL, "author" INTEGER);
            CREATE TABLE "Tag" ("_pk" INTEGER PRIMARY KEY, "_version" INTEGER NOT NULL DEFAULT 0, "name" TEXT);
            CREATE TABLE "_join_Author_tags" ("a" INTEGER NOT NULL, "b" INTEGER NOT NULL, PRIMARY KEY ("a", "b"));
            """)
    }

    // MARK: Building data

    @discardableResult
    func insert(_ entity: String, _ values: [String: Value]) throws -> ObjectID {
        let n = (next[entity] ?? 0) + 1
        next[entity] = n
        let id = ObjectID(entity: entity, number: n)
        let e = Library.model.entity(entity)!
        var snapshot: Snapshot = [:]
        var columns = ["\"_pk\""]
        var marks = ["?"]
        var bindings: [SQLValue] = [.integer(n)]
        for a in e.attributes {
            let v = values[a.name] ?? .null
            snapshot[a.name] = v
            columns.append(SchemaNaming.quoted(a.name))
            marks.append("?")
            bindings.append(ValueEncoding.sql(v))
        }
        for r in e.relationships {
            if r.toMany {
                snapshot[r.name] = .objects([])
                continue
            }
            let v = values[r.name] ?? .null
            snapshot[r.name] = v
            columns.append(SchemaNaming.quoted(r.name))
            marks.append("?")
            bindings.append(ValueEncoding.sql(v))
        }
        try db.prepare(
            "INSERT INTO \(SchemaNaming.quoted(entity)) (\(columns.joined(separator: ", "))) VALUES (\(marks.joined(separator: ", ")))"
        ).run(bindings)
        objects[id] = snapshot
        // Keep the to-many sides of one-to-many pairs in the snapshots.
        for r in e.relationships where !r.toMany {
            if case .object(let target)? = values[r.name], let inverse = Library.model.inverse(of: r), inverse.toMany {
                add(id, to: target, inverse.name)
            }
        }
        return id
    }

    func tag(_ author: ObjectID, _ tag: ObjectID) throws {
        try db.prepare("INSERT INTO \"_join_Author_tags\" (\"a\", \"b\") VALUES (?, ?)").run([
            .integer(author.number), .integer(tag.number),
        ])
        add(tag, to: author, "tags")
        add(author, to: tag, "authors")
    }

    private func add(_ member: ObjectID, to owner: ObjectID, _ relationship: String) {
        guard case .objects(var ids)? = objects[owner]?[relationship] else { return }
        ids.append(member)
        ids.sort()
        objects[owner]![relationship] = .objects(ids)
    }

    // MARK: ObjectView

    func snapshot(of id: ObjectID) -> Snapshot? { objects[id] }

    func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
        objects.filter { $0.key.entity == entity && $0.value[relationship] == .object(target) }.map(\.key).sorted()
    }

    // MARK: Running requests both ways

    func ids(_ entity: String) -> [ObjectID] { objects.keys.filter { $0.entity == entity }.sorted() }

    func sqlMatches(_ compiled: CompiledRequest) throws -> [Int64] {
        let where_ = compiled.filter.sql(alias: "t")
        let statement = try db.prepare(
            "SELECT t.\"_pk\" FROM \(SchemaNaming.quoted(compiled.request.entity)) AS t WHERE \(where_.text) ORDER BY t.\"_pk\""
        )
        try statement.bind(where_.bindings.map(ValueEncoding.sql))
        var out: [Int64] = []
        while try statement.step() { out.append(statement.int64(0)) }
        return out
    }

    func memoryMatches(_ compiled: CompiledRequest) -> [Int64] {
        ids(compiled.request.entity).filter { compiled.filter.matches($0, objects[$0]!, in: self) }.map(\.number)
    }

    /// Every object of the entity in ORDER BY order (ids break ties), and the keys SQL selected.
    func sqlOrder(_ compiled: CompiledRequest) throws -> (ids: [Int64], keys: [SortKey]) {
        let order = compiled.ordering.orderBy(alias: "t")
        let columns = compiled.ordering.keyColumns(alias: "t")
        let select = (["t.\"_pk\""] + columns.map(\.text)).joined(separator: ", ")
        let orderText = order.text.isEmpty ? "t.\"_pk\"" : order.text + ", t.\"_pk\""
        let statement = try db.prepare(
            "SELECT \(select) FROM \(SchemaNaming.quoted(compiled.request.entity)) AS t ORDER BY \(orderText)")
        try statement.bind((columns.flatMap(\.bindings) + order.bindings).map(ValueEncoding.sql))
        var ids: [Int64] = []
        var keys: [SortKey] = []
        while try statement.step() {
            ids.append(statement.int64(0))
            keys.append(
                compiled.ordering.key(
                    fromColumns: (0..<columns.count).map { ValueEncoding.untyped(statement.value(Int32($0 + 1))) }))
        }
        return (ids, keys)
    }

    func memoryOrder(_ compiled: CompiledRequest) -> [Int64] {
        let o = compiled.ordering
        let keyed = ids(compiled.request.entity).map { ($0, o.key(of: $0, objects[$0]!, in: self)) }
        return keyed.sorted { a, b in
            let c = o.compare(a.1, b.1)
            return c != 0 ? c < 0 : a.0.number < b.0.number
        }.map(\.0.number)
    }
}
