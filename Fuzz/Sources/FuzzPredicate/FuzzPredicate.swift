import FuzzDriver
import Model
import Predicates

/// The predicate parser and compiler on arbitrary text, against a small model with every
/// attribute type and relationships of both kinds: no crash, and a predicate that compiles
/// yields SQL.
private let model = ObjectModel(entities: [
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
            Relationship(name: "mentor", destination: "Author", toMany: false, inverse: "mentees"),
            Relationship(name: "mentees", destination: "Author", toMany: true, inverse: "mentor"),
        ]),
    Entity(
        name: "Book",
        attributes: [
            Attribute(name: "title", type: .string, optional: true),
            Attribute(name: "pages", type: .integer, optional: true),
        ],
        relationships: [
            Relationship(name: "author", destination: "Author", toMany: false, inverse: "books")
        ]),
])

@main enum FuzzPredicateMain {
    static func main() { runFuzzer { data, size in fuzzPredicate(data!, size) } }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // A fresh compiler per input: its caches would keep every input's trees alive.
    let compiler = RequestCompiler(model: model)
    guard let compiled = try? compiler.compile(FetchRequest(entity: "Author", predicate: text)) else { return 0 }
    if compiled.filter.sql(alias: "t").text.isEmpty { fatalError("empty SQL for \(text)") }
    return 0
}
