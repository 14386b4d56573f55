import Foundation
import JSON
import TestSupport
import Testing

/// Difference mode (protocol.md §10.8) against rows mode over the wire: every spec of the
/// oracle gets two controllers with the same request, one per mode, and the same random cycles
/// (the oracle's operations, setRequest on both twins included). After every cycle both
/// mirrors must be equal, equal to a fresh `context/fetch`, and have the controller's section
/// names. A difference controller sends exactly one `controller/didChange` per cycle that
/// changed it, and nothing else.
extension ControllerOracleTests {
    static let twin = "Diff"

    @Test(arguments: [47, 1009]) func differenceModeMatchesRowsMode(seed: Int) throws {
        let client = try Client()
        let model = Self.model.split(separator: "\n").joined(separator: " ")
        _ = try client.request("store/open", #"{"model":\#(model)}"#)
        var seeded = Seeded(seed: UInt64(seed))
        for i in 0..<4 {
            _ = try client.request(
                "context/insert", #"{"context":"main","entity":"Author","values":{"name":"A\#(i % 3)","rank":\#(i)}}"#)
        }
        for _ in 0..<20 { #expect(try client.send(Self.insertBook(&seeded))["error"] == nil) }
        var books = Books(live: Array(1...20), next: 21)
        var rowsMirrors: [String: TableMirror] = [:]
        var diffMirrors: [String: TableMirror] = [:]
        var specs = Self.specs
        for spec in specs {
            let section = spec.section.map { #","sectionNameKeyPath":"\#($0)""# } ?? ""
            for (name, notify) in [(spec.name, ""), (spec.name + Self.twin, #","notify":{"mode":"difference"}"#)] {
                _ = try client.request(
                    "controller/create",
                    #"{"context":"main","name":"\#(name)","request":\#(spec.request)\#(section)\#(notify)}"#)
            }
            rowsMirrors[spec.name] = try Self.controllerTable(client, spec.name)
            diffMirrors[spec.name] = try Self.controllerTable(client, spec.name + Self.twin)
        }
        let cycles = Int(ProcessInfo.processInfo.environment["FETCHD_ORACLE_CYCLES"] ?? "") ?? 300
        var differences = 0
        var longRuns = 0
        for cycle in 0..<cycles {
            let ops: [String]
            if seeded.int(5) != 0 {
                // Now and then a large batch, for runs of several rows.
                let count = seeded.int(6) == 0 ? 10 + seeded.int(15) : seeded.int(4) == 0 ? 3 + seeded.int(4) : 1
                ops = (0..<count).map { _ in Self.randomOp(&seeded, &books) }
            } else {
                let i = seeded.int(specs.count - 1)
                specs[i] = Self.randomBookSpec(&seeded, name: specs[i].name)
                let section = specs[i].section.map { #""\#($0)""# } ?? "null"
                ops = [specs[i].name, specs[i].name + Self.twin].enumerated().map { k, name in
                    #"{"jsonrpc":"2.0","id":\#(cycle * 2 + k + 10_000),"method":"controller/setRequest","params":{"controller":"\#(name)","request":\#(specs[i].request),"sectionNameKeyPath":\#(section)}}"#
                }
            }
            let reply = try client.send(ops.count == 1 ? ops[0] : "[" + ops.joined(separator: ",") + "]")
            for response in reply.arrayValue ?? [reply] {
                #expect(response["error"] == nil, "cycle \(cycle): \(response)")
            }
            var batches: [String: [(method: String, params: JSON)]] = [:]
            var didChange: [String: [JSON]] = [:]
            for n in client.pending {
                guard let name = n.params["controller"]?.stringValue else { continue }
                if name.hasSuffix(Self.twin) {
                    #expect(n.method == "controller/didChange", "cycle \(cycle): \(n.method) for \(name)")
                    didChange[String(name.dropLast(Self.twin.count)), default: []].append(n.params)
                } else {
                    batches[name, default: []].append(n)
                }
            }
            client.pending.removeAll()
            for (name, batch) in batches {
                try rowsMirrors[name]!.apply(Array(batch.dropFirst().dropLast()))
            }
            for (name, messages) in didChange {
                // setRequest sends one cycle per controller, a context cycle one for each.
                #expect(messages.count == 1, "cycle \(cycle) \(name): one controller/didChange per cycle")
                for p in messages {
                    try diffMirrors[name]!.applyDifference(p)
                    for member in ["deleted", "inserted", "updated"] {
                        longRuns += (p[member]?.arrayValue ?? []).filter { ($0.arrayValue?.last ?? 0) != 1 }.count
                    }
                }
                differences += 1
            }
            #expect(Set(didChange.keys) == Set(batches.keys), "cycle \(cycle): both modes report the same controllers")
            for spec in specs {
                let fresh =
                    try client.request("context/fetch", #"{"context":"main","request":\#(spec.fetch)}"#)["objects"]?
                    .arrayValue ?? []
                let rows = rowsMirrors[spec.name]!
                let diff = diffMirrors[spec.name]!
                guard diff == rows, rows.sections.flatMap(\.rows) == fresh else {
                    Issue.record(
                        "seed \(seed) cycle \(cycle) \(spec.name): difference \(diff.sections.map { ($0.name, $0.rows.map { $0["id"]!.stringValue! }) }) rows \(rows.sections.map { ($0.name, $0.rows.map { $0["id"]!.stringValue! }) }) fetch \(fresh.map { $0["id"]!.stringValue! })"
                    )
                    return
                }
                let sections =
                    try client.request("controller/sections", #"{"controller":"\#(spec.name)\#(Self.twin)"}"#)[
                        "sections"]?
                    .arrayValue ?? []
                #expect(sections.map { $0["name"]?.stringValue ?? "?" } == diff.sections.map(\.name))
            }
        }
        #expect(differences > 100)
        #expect(longRuns > 10, "runs of several rows")
        client.process.closeInput()
        #expect(client.process.finish().status == 0)
    }
}
