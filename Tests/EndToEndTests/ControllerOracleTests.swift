import Foundation
import JSON
import TestSupport
import Testing

/// The oracle over the real binary: random change cycles sent as JSON-RPC (single requests
/// and batches, and controller/setRequest changing a Book controller's request), every controller notification applied to a table mirror, and after every
/// cycle each mirror compared with a fresh `context/fetch` (ids and values) and with the
/// controller's own sections. FETCHD_ORACLE_CYCLES runs it longer.
@Suite(.serialized) struct ControllerOracleTests {
    static let model = """
        {"entities": [
          {"name": "Author", "attributes": {"name": {"type": "string"}, "rank": {"type": "integer", "default": 0}},
           "relationships": {"books": {"destination": "Book", "toMany": true, "inverse": "author", "deleteRule": "nullify"}}},
          {"name": "Book", "attributes": {"title": {"type": "string"}, "price": {"type": "integer", "optional": true},
                                          "year": {"type": "integer", "default": 2000}, "note": {"type": "string", "optional": true}},
           "relationships": {"author": {"destination": "Author", "toMany": false, "inverse": "books", "deleteRule": "nullify"}}}
        ]}
        """

    struct Spec {
        var name: String
        var request: String
        var section: String?
        /// The same request for context/fetch: the section key sorts first (protocol.md §8).
        var fetch: String {
            section.map {
                request.replacingOccurrences(
                    of: #""sortDescriptors":["#, with: #""sortDescriptors":[{"key":"\#($0)"},"#)
            } ?? request
        }
    }
    static let specs = [
        Spec(name: "byPrice", request: #"{"entity":"Book","sortDescriptors":[{"key":"price"}]}"#),
        Spec(
            name: "years",
            request:
                #"{"entity":"Book","predicate":"price > 5","sortDescriptors":[{"key":"title","ascending":false}]}"#,
            section: "year"),
        Spec(
            name: "window",
            request:
                #"{"entity":"Book","sortDescriptors":[{"key":"year"},{"key":"price","ascending":false}],"fetchLimit":5,"fetchOffset":2}"#
        ),
        Spec(
            name: "byAuthor",
            request: #"{"entity":"Book","sortDescriptors":[{"key":"title","comparator":"caseInsensitiveCompare"}]}"#,
            section: "author.name"),
        Spec(
            name: "authors",
            request: #"{"entity":"Author","predicate":"ANY books.price > 20","sortDescriptors":[{"key":"name"}]}"#),
    ]

    final class Client {
        let process: FetchdProcess
        var nextID = 100
        var pending: [(method: String, params: JSON)] = []
        init() throws { process = try FetchdProcess() }

        /// Sends one request or batch and returns its response, collecting notifications.
        func send(_ text: String) throws -> JSON {
            process.write(text + "\n")
            while true {
                guard let line = process.readLine() else { throw TableMirror.Failure.bad("fetchd closed its output") }
                let message = try JSON.parse(line)
                if let method = message["method"]?.stringValue {
                    pending.append((method, message["params"] ?? .null))
                } else {
                    return message
                }
            }
        }

        func request(_ method: String, _ params: String) throws -> JSON {
            nextID += 1
            let reply = try send(#"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(nextID)}"#)
            if let error = reply["error"] { throw TableMirror.Failure.bad("\(method) failed: \(error)") }
            return reply["result"] ?? .null
        }
    }

    @Test func randomCyclesOverTheWire() throws {
        let client = try Client()
        // One line per message: the model goes without its newlines.
        let model = Self.model.split(separator: "\n").joined(separator: " ")
        _ = try client.request("store/open", #"{"model":\#(model)}"#)
        var seeded = Seeded(seed: 31)
        for i in 0..<4 {
            _ = try client.request(
                "context/insert", #"{"context":"main","entity":"Author","values":{"name":"A\#(i % 3)","rank":\#(i)}}"#)
        }
        for _ in 0..<20 { #expect(try client.send(Self.insertBook(&seeded))["error"] == nil) }
        // The books that exist: ids are handed out in insert order, and a book delete cannot
        // be refused, so the client knows them without asking. Deletes and updates pick from
        // them, so the table stays small however long the run.
        var books = Books(live: Array(1...20), next: 21)
        var mirrors: [String: TableMirror] = [:]
        var specs = Self.specs
        for spec in specs {
            let section = spec.section.map { #","sectionNameKeyPath":"\#($0)""# } ?? ""
            _ = try client.request(
                "controller/create", #"{"context":"main","name":"\#(spec.name)","request":\#(spec.request)\#(section)}"#
            )
            mirrors[spec.name] = try Self.controllerTable(client, spec.name)
        }
        #expect(client.pending.isEmpty, "controller/create sends no notification")
        let cycles = Int(ProcessInfo.processInfo.environment["FETCHD_ORACLE_CYCLES"] ?? "") ?? 400
        var events = 0
        for cycle in 0..<cycles {
            // One cycle: a single request, or a batch of several (one cycle too), or a new
            // request for one of the Book controllers (controller/setRequest).
            let ops: [String]
            if seeded.int(5) != 0 {
                ops = (0..<(seeded.int(4) == 0 ? 3 + seeded.int(4) : 1)).map { _ in Self.randomOp(&seeded, &books) }
            } else {
                let i = seeded.int(specs.count - 1)
                specs[i] = Self.randomBookSpec(&seeded, name: specs[i].name)
                let section = specs[i].section.map { #""\#($0)""# } ?? "null"
                ops = [
                    #"{"jsonrpc":"2.0","id":\#(cycle + 10_000),"method":"controller/setRequest","params":{"controller":"\#(specs[i].name)","request":\#(specs[i].request),"sectionNameKeyPath":\#(section)}}"#
                ]
            }
            // Every request names an object that exists, so none may fail.
            let reply = try client.send(ops.count == 1 ? ops[0] : "[" + ops.joined(separator: ",") + "]")
            for response in reply.arrayValue ?? [reply] {
                #expect(response["error"] == nil, "cycle \(cycle): \(response)")
            }
            // Split the notifications per controller, check framing, apply.
            var batches: [String: [(method: String, params: JSON)]] = [:]
            var order: [String] = []
            for n in client.pending {
                guard let name = n.params["controller"]?.stringValue else { continue }
                if n.method == "controller/willChangeContent" {
                    order.append(name)
                    #expect(batches[name] == nil)
                }
                batches[name, default: []].append(n)
            }
            client.pending.removeAll()
            #expect(order == specs.map(\.name).filter { order.contains($0) }, "controllers served in creation order")
            for (name, batch) in batches {
                #expect(
                    batch.first?.method == "controller/willChangeContent"
                        && batch.last?.method == "controller/didChangeContent")
                #expect(batch.count > 2, "no empty will/did pair")
                events += batch.count - 2
                try mirrors[name]!.apply(Array(batch.dropFirst().dropLast()))
            }
            for spec in specs {
                let fresh =
                    try client.request("context/fetch", #"{"context":"main","request":\#(spec.fetch)}"#)["objects"]?
                    .arrayValue ?? []
                let mirror = mirrors[spec.name]!
                if mirror.sections.flatMap(\.rows) != fresh {
                    Issue.record(
                        "cycle \(cycle) \(spec.name): mirror \(mirror.sections.map { ($0.name, $0.rows.map { $0["id"]!.stringValue! }) }) != fetch \(fresh.map { $0["id"]!.stringValue! })"
                    )
                    return
                }
                let sections =
                    try client.request("controller/sections", #"{"controller":"\#(spec.name)"}"#)["sections"]?
                    .arrayValue ?? []
                #expect(
                    sections.map { $0["name"]?.stringValue ?? "?" } == mirror.sections.map(\.name),
                    "cycle \(cycle) \(spec.name)")
            }
        }
        #expect(events > 200)
        client.process.closeInput()
        #expect(client.process.finish().status == 0)
    }

    /// A random Book request for controller/setRequest: predicates that refine one another
    /// (the in-memory path) or not, sort, section and window changes.
    static func randomBookSpec(_ rng: inout Seeded, name: String) -> Spec {
        let predicates = [
            nil, "price > 5", "price > 5 AND year >= 2001", "year >= 2001 AND price > 5 AND title BEGINSWITH 'B'",
            "year != 2002", "title BEGINSWITH[c] 'b'", "title BEGINSWITH[c] 'bo'",
        ]
        let sorts = [
            #"[{"key":"price"}]"#, #"[{"key":"title","ascending":false}]"#,
            #"[{"key":"year"},{"key":"price","ascending":false}]"#,
        ]
        let predicate = predicates[rng.int(predicates.count)].map { #","predicate":"\#($0)""# } ?? ""
        let window = rng.int(3) == 0 ? #","fetchLimit":5,"fetchOffset":2"# : ""
        let sections: [String?] = [nil, nil, "year", "author.name"]
        return Spec(
            name: name,
            request: #"{"entity":"Book"\#(predicate),"sortDescriptors":\#(sorts[rng.int(sorts.count)])\#(window)}"#,
            section: sections[rng.int(sections.count)])
    }

    /// The controller's current table, read with controller/sections and controller/rows.
    static func controllerTable(_ client: Client, _ name: String) throws -> TableMirror {
        var table = TableMirror()
        let sections =
            try client.request("controller/sections", #"{"controller":"\#(name)"}"#)["sections"]?.arrayValue ?? []
        for (i, s) in sections.enumerated() {
            let rows =
                try client.request("controller/rows", #"{"controller":"\#(name)","section":\#(i)}"#)["objects"]?
                .arrayValue ?? []
            table.sections.append(.init(name: s["name"]?.stringValue ?? "", rows: rows))
        }
        return table
    }

    static let titles = ["alpha", "Beta", "gamma", "Delta", "eps"]

    static func insertBook(_ rng: inout Seeded) -> String {
        let author = rng.int(6) == 0 ? "null" : "\"Author/\(1 + rng.int(4))\""
        let price = rng.int(8) == 0 ? "null" : "\(rng.int(30))"
        return
            #"{"jsonrpc":"2.0","method":"context/insert","params":{"context":"main","entity":"Book","values":{"title":"\#(titles[rng.int(5)])","price":\#(price),"year":\#(2000 + rng.int(4)),"author":\#(author)}},"id":\#(rng.int(1_000_000))}"#
    }

    struct Books {
        var live: [Int]
        var next: Int
    }

    /// A random request: insert, update (sort, section, predicate or unread keys), delete,
    /// rename an author (read through key paths).
    static func randomOp(_ rng: inout Seeded, _ books: inout Books) -> String {
        let id = rng.int(1_000_000)
        let roll = rng.int(10)
        if roll < 2 || books.live.isEmpty {
            books.live.append(books.next)
            books.next += 1
            return insertBook(&rng)
        }
        let pick = rng.int(books.live.count)
        let book = books.live[pick]
        switch roll {
        case 2, 3:
            books.live.remove(at: pick)
            return
                #"{"jsonrpc":"2.0","method":"context/delete","params":{"context":"main","id":"Book/\#(book)"},"id":\#(id)}"#
        case 4:
            return
                #"{"jsonrpc":"2.0","method":"context/update","params":{"context":"main","id":"Author/\#(1 + rng.int(4))","values":{"name":"A\#(rng.int(5))"}},"id":\#(id)}"#
        default:
            let values = [
                #"{"price":\#(rng.int(30))}"#, #"{"year":\#(2000 + rng.int(4))}"#,
                #"{"title":"\#(titles[rng.int(5)])"}"#,
                #"{"note":"n\#(rng.int(3))"}"#, #"{"author":"Author/\#(1 + rng.int(4))"}"#,
            ][rng.int(5)]
            return
                #"{"jsonrpc":"2.0","method":"context/update","params":{"context":"main","id":"Book/\#(book)","values":\#(values)},"id":\#(id)}"#
        }
    }
}

/// The run's generator (SplitMix64), so it replays exactly.
typealias Seeded = SplitMix64

extension SplitMix64 {
    mutating func int(_ n: Int) -> Int { below(n) }
}
