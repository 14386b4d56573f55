import Contexts
import Model
import Predicates
import Store
import Testing

/// Dictionary and aggregate fetches: the in-memory evaluator over unsaved changes gives the
/// rows SQL gives once the same changes are saved, for random data and random requests
/// (groups, functions, key paths through to-one relationships, having, order, window).
@Suite struct DictionaryAgreementTests {
    static let groupKeys = ["year", "flag", "note", "author", "author.name", "author.rank"]
    static let functions: [(AggregateFunction, [String])] = [
        (.count, ["price", "title", "author"]), (.sum, ["price", "year", "author.rank"]),
        (.average, ["price", "author.rank"]), (.min, ["price", "title", "flag", "author.name"]),
        (.max, ["price", "title", "year", "author.name"]),
    ]

    static func randomRequest(_ rng: inout SeededRandom, _ compiler: RequestCompiler) throws -> DictionaryRequest {
        var groupBy: [String] = []
        for key in groupKeys where rng.chance(0.3) { groupBy.append(key) }
        if groupBy.count > 2 { groupBy = Array(groupBy.prefix(2)) }
        var properties = groupBy.map { DictionaryProperty(name: $0, keyPath: $0) }
        for i in 0..<rng.int(1..<4) {
            let (f, keys) = functions[rng.int(0..<functions.count)]
            properties.append(DictionaryProperty(name: "e\(i)", keyPath: keys[rng.int(0..<keys.count)], function: f))
        }
        let predicate = ["price > 10", "year != 2002", "flag == YES", "author.rank < 6", nil][rng.int(0..<5)]
        let filter = try predicate.map { try compiler.compile(FetchRequest(entity: "Book", predicate: $0)).filter }
        var order: [(key: String, ascending: Bool, comparator: Comparator)] = []
        if rng.chance(0.5) { order.append((key: "e0", ascending: rng.chance(0.5), comparator: .compare)) }
        for g in groupBy { order.append((key: g, ascending: true, comparator: .compare)) }
        return DictionaryRequest(
            entity: "Book", filter: filter, properties: properties, groupBy: groupBy, resultOrder: order,
            limit: rng.chance(0.2) ? rng.int(1..<5) : nil, offset: rng.chance(0.2) ? 1 : 0)
    }

    @Test(arguments: [UInt64(41), 42])
    func memoryOverUnsavedChangesAgreesWithSQLAfterTheSave(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        for _ in 0..<5 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<40 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        _ = try main.save()
        let compiler = RequestCompiler(model: Library.model)
        var sqlRuns = 0
        for step in 0..<iterations(default: 150) {
            for _ in 0..<rng.int(0..<5) { try? ContextOracleTests.mutate(main, &rng) }
            let request = try Self.randomRequest(&rng, compiler)
            let memory = try main.fetchDictionaries(request, preferSQL: false)
            _ = try? main.save()
            guard !main.hasChanges else { continue } // a refused save: nothing to compare
            let sql = try main.fetchDictionaries(request)
            let direct = (request.properties.map(\.keyPath) + request.groupBy).allSatisfy {
                !$0.contains(".") && $0 != "author"
            }
            if direct { sqlRuns += 1 }
            #expect(memory == sql, "seed \(seed) step \(step): \(request.properties) by \(request.groupBy)")
            #expect(try main.fetchDictionaries(request, preferSQL: false) == sql, "seed \(seed) step \(step)")
        }
        #expect(sqlRuns > 20)
    }

    @Test func errorsNameTheKeyPath() throws {
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let main = try ObjectGraph(store: store).context(ObjectGraph.mainContext)
        func kind(_ properties: [DictionaryProperty], _ groupBy: [String] = [], entity: String = "Book") -> String? {
            do {
                _ = try main.fetchDictionaries(
                    DictionaryRequest(entity: entity, properties: properties, groupBy: groupBy))
                return nil
            } catch { return error.kind.rawValue }
        }
        #expect(kind([DictionaryProperty(name: "x", keyPath: "nope")]) == "unknownKey")
        #expect(kind([DictionaryProperty(name: "x", keyPath: "books.title")], entity: "Author") == "typeMismatch")
        #expect(kind([DictionaryProperty(name: "x", keyPath: "title", function: .sum)]) == "typeMismatch")
        #expect(
            kind([
                DictionaryProperty(name: "title", keyPath: "title"),
                .init(name: "n", keyPath: "price", function: .count),
            ]) == "invalidValue")
        #expect(kind([DictionaryProperty(name: "n", keyPath: "price", function: .count)], ["year"]) == nil)
    }
}
