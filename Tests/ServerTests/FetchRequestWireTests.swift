import JSON
import JSONRPC
import Predicates
import Server
import Testing

@Suite struct FetchRequestWireTests {
    static let request = Param<FetchRequest>.required("request", .ref("FetchRequest"))

    /// Read as a param, checked against the FetchRequest component.
    private func decode(_ json: JSONObject) throws -> FetchRequest {
        try ParamReader(["request": .object(json)])[Self.request]
    }

    private func failure(_ json: JSONObject) -> JSONObject? {
        do {
            _ = try decode(json)
            return nil
        } catch let e as RPCError {
            #expect(e.code == RPCError.invalidParamsCode)
            return e.data?.objectValue
        } catch { return nil }
    }

    @Test func decodesEveryField() throws {
        let r = try decode([
            "entity": "Book", "predicate": "title IN $titles AND published > $after AND author == $a",
            "variables": [
                "titles": ["A", "B"], "after": "2024-01-01", "a": "Author/3", "n": nil, "k": 2.5, "f": true,
            ],
            "sortDescriptors": [
                ["key": "title", "comparator": "localizedStandardCompare"], ["key": "pages", "ascending": false],
            ],
            "fetchLimit": 10, "fetchOffset": 5, "fetchBatchSize": 20,
        ])
        #expect(r.entity == "Book")
        #expect(r.predicate == "title IN $titles AND published > $after AND author == $a")
        #expect(r.listVariables == ["titles": [.string("A"), .string("B")]])
        #expect(
            r.variables == [
                "after": .string("2024-01-01"), "a": .string("Author/3"), "n": .null, "k": .double(2.5),
                "f": .bool(true),
            ])
        #expect(
            r.sortDescriptors == [
                SortDescriptor(key: "title", ascending: true, comparator: .localizedStandardCompare),
                SortDescriptor(key: "pages", ascending: false, comparator: .compare),
            ])
        #expect(r.fetchLimit == 10)
        #expect(r.fetchOffset == 5)
        let minimal = try decode(["entity": "Book"])
        #expect(minimal == FetchRequest(entity: "Book"))
    }

    @Test func badFieldsNameTheParameter() {
        let cases: [(JSONObject, String)] = [
            ([:], "request.entity"),
            (["entity": 3], "request.entity"),
            (["entity": "B", "predicate": 1], "request.predicate"),
            (["entity": "B", "predicat": "x == 1"], "request.predicat"),
            (["entity": "B", "variables": ["x": ["a": 1]]], "request.variables.x"),
            (["entity": "B", "variables": ["x": [[1]]]], "request.variables.x[0]"),
            (
                ["entity": "B", "sortDescriptors": [["key": "a", "comparator": "natural"]]],
                "request.sortDescriptors[0].comparator"
            ),
            (["entity": "B", "sortDescriptors": [["ascending": true]]], "request.sortDescriptors[0].key"),
            (["entity": "B", "sortDescriptors": [["key": "a", "order": "asc"]]], "request.sortDescriptors[0].order"),
            (["entity": "B", "sortDescriptors": ["a"]], "request.sortDescriptors[0]"),
            (["entity": "B", "fetchLimit": -1], "request.fetchLimit"),
            (["entity": "B", "fetchOffset": "2"], "request.fetchOffset"),
        ]
        for (json, param) in cases {
            let data = failure(json)
            #expect(data?["kind"] == "invalidParams", "\(json)")
            #expect(data?["param"] == .string(param), "\(json): \(String(describing: data))")
        }
    }
}
