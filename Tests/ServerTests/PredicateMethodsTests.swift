import JSON
import JSONRPC
import Model
import Testing

@testable import Server

/// Predicates and sort descriptors over the wire: `context/fetch` and `context/count` on a
/// context holding saved objects (matched by SQL) and unsaved ones (matched in memory).
@Suite struct PredicateMethodsTests {
    private func server() throws -> Server {
        let s = Server()
        _ = try s.call("store/open", ["model": try JSON.parse(Array(WireModelTests.contacts.utf8))]).get()
        let g = ["Work", "Home"]
        for title in g {
            _ = try call(
                s, "context/insert", ["context": "main", "entity": "Group", "values": ["title": .string(title)]])
        }
        let saved: [(String, Int64, String?, JSON)] = [
            ("Ana", 30, "1990-05-01", "Group/1"), ("ana", 25, nil, "Group/2"),
            ("Émile", 41, "1985-01-01", nil),
        ]
        for (name, age, born, group) in saved {
            _ = try call(
                s, "context/insert",
                [
                    "context": "main", "entity": "Contact",
                    "values": [
                        "name": .string(name), "age": .integer(age), "born": born.map(JSON.string) ?? nil,
                        "group": group,
                    ],
                ])
        }
        _ = try call(s, "context/save", ["context": "main"])
        // Unsaved: one insert and one update of a saved object.
        _ = try call(
            s, "context/insert",
            [
                "context": "main", "entity": "Contact",
                "values": ["name": "file10", "age": 7, "group": "Group/1"],
            ])
        _ = try call(s, "context/update", ["context": "main", "id": "Contact/2", "values": ["name": "file2"]])
        return s
    }

    private func call(_ s: Server, _ method: String, _ params: JSON) throws -> JSON {
        let result = s.call(method, params)
        s.endOfCycle()
        return try result.get()
    }

    private func ids(_ s: Server, _ request: JSON) throws -> [String] {
        let r = try call(s, "context/fetch", ["context": "main", "request": request, "keys": []])
        return r["objects"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test func predicatesSeeSavedAndUnsavedObjects() throws {
        let s = try server()
        let cases: [(JSON, [String])] = [
            (["entity": "Contact", "predicate": "name BEGINSWITH[c] 'a'"], ["Contact/1"]),
            (
                ["entity": "Contact", "predicate": "name ==[cd] 'EMILE' OR group.title == 'Work'"],
                ["Contact/1", "Contact/3", "Contact/4"]
            ),
            (["entity": "Contact", "predicate": "born == nil"], ["Contact/2"]),
            (["entity": "Contact", "predicate": "born < $d", "variables": ["d": "1990-01-01"]], ["Contact/3"]),
            (
                ["entity": "Contact", "predicate": "name IN $n", "variables": ["n": ["file2", "Ana"]]],
                ["Contact/1", "Contact/2"]
            ),
            (["entity": "Contact", "predicate": "group != 'Group/1'"], ["Contact/2", "Contact/3"]),
            (["entity": "Group", "predicate": "ANY members.age > 40"], []),
            (["entity": "Group", "predicate": "members.@count == 2"], ["Group/1"]),
            (
                ["entity": "Group", "predicate": "SUBQUERY(members, $m, $m.name LIKE 'file*').@count == 1"],
                ["Group/1", "Group/2"]
            ),
        ]
        for (request, expected) in cases {
            #expect(try ids(s, request) == expected, "\(request)")
        }
    }

    @Test func sortDescriptorsOrderSavedAndUnsavedTogether() throws {
        let s = try server()
        let localized = try ids(
            s, ["entity": "Contact", "sortDescriptors": [["key": "name", "comparator": "localizedStandardCompare"]]])
        #expect(localized == ["Contact/1", "Contact/3", "Contact/2", "Contact/4"]) // Ana, Émile, file2, file10
        let binary = try ids(s, ["entity": "Contact", "sortDescriptors": [["key": "name"]]])
        #expect(binary == ["Contact/1", "Contact/4", "Contact/2", "Contact/3"]) // Ana, file10, file2, Émile
        let byGroup = try ids(
            s, ["entity": "Contact", "sortDescriptors": [["key": "group.title", "ascending": false], ["key": "age"]]])
        #expect(byGroup == ["Contact/4", "Contact/1", "Contact/2", "Contact/3"]) // Work (7, 30), Home, nil last
        let count = try call(
            s, "context/count", ["context": "main", "request": ["entity": "Contact", "predicate": "age >= 25"]])
        #expect(count == ["count": 3])
    }

    @Test func predicateErrorsOnTheWire() throws {
        let s = try server()
        func error(_ request: JSON) -> (Int, JSONObject)? {
            guard case .failure(let e) = s.call("context/fetch", ["context": "main", "request": request]) else {
                return nil
            }
            return (e.code, e.data?.objectValue ?? [:])
        }
        let syntax = error(["entity": "Contact", "predicate": "age NOT IN {1, 2}"])
        #expect(syntax?.0 == -32602)
        #expect(
            syntax?.1 == [
                "kind": "predicateSyntax", "predicate": "age NOT IN {1, 2}", "offset": 4,
                "expected": "a comparison operator",
            ])
        let unknown = error(["entity": "Contact", "predicate": "group.name == 'x'"])
        #expect(unknown?.0 == -32021)
        #expect(unknown?.1 == ["kind": "unknownKey", "entity": "Group", "key": "name"])
        let mismatch = error(["entity": "Contact", "predicate": "age BEGINSWITH 3"])
        #expect(mismatch?.0 == -32602)
        #expect(
            mismatch?.1 == [
                "kind": "typeMismatch", "entity": "Contact", "key": "age", "expected": "string for BEGINSWITH",
                "got": "number",
            ])
        let missing = error(["entity": "Contact", "predicate": "age > $min"])
        #expect(missing?.1 == ["kind": "missingVariable", "variable": "min"])
        let badDate = error(["entity": "Contact", "predicate": "born > 'soon'"])
        #expect(badDate?.1["kind"] == "invalidValue")
        let badSort = error(["entity": "Contact", "sortDescriptors": [["key": "group.members"]]])
        #expect(badSort?.1["kind"] == "typeMismatch")
        let deep = error([
            "entity": "Contact", "predicate": .string(String(repeating: "(", count: 10_000) + "age == 1"),
        ])
        #expect(deep?.1["kind"] == "predicateSyntax")
        // Nothing changed: the unsaved objects are still there.
        #expect(try ids(s, ["entity": "Contact"]).count == 4)
    }
}
