import JSON
import JSONRPC
import Testing

@testable import Server

/// `store/batchInsert`'s two forms read rows the same way (the columnar one looks each key
/// up once for all its rows): random rows with wrong types, unknown and missing keys,
/// nulls and unicode, sent as objects to one server and as `keys` + `rows` to another,
/// must get the same answer (the same -32030 `errors` list, or the same objects written).
@Suite struct BatchInsertFormsTests {
    /// xorshift64*: the same rows on every run.
    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
        mutating func next(_ bound: Int) -> Int { Int(next() >> 33) % bound }
    }

    static let keys = ["name", "phone", "age", "born", "group", "nope"]

    /// A value for `key`: any JSON when `wild`, else one the key takes.
    static func value(_ key: String, wild: Bool, _ rng: inout Rng) -> JSON {
        let strings: [JSON] = ["Ann", "Zoë 🎉", "", "ü\u{0301}", "2001-02-03T04:05:06Z", "Group/1", "Group/9"]
        switch wild ? rng.next(10) : 9 {
        case 0: return .null
        case 1: return .integer(Int64(rng.next(1000)) - 500)
        case 2: return .double(2.5)
        case 3: return .bool(true)
        case 4: return .array([])
        default:
            switch key {
            case "age": return .integer(Int64(rng.next(100)))
            case "born": return "1999-12-31T23:00:00Z"
            case "group": return rng.next(2) == 0 ? "Group/1" : .null
            case "phone": return rng.next(3) == 0 ? .null : strings[rng.next(strings.count)]
            default: return strings[rng.next(strings.count)]
            }
        }
    }

    private func server() throws -> Server {
        let s = Server()
        _ = try s.call("store/open", ["model": StoreContextMethodsTests.model]).get()
        _ = try s.call("context/insert", ["context": "main", "entity": "Group", "values": ["title": "g"]]).get()
        _ = try s.call("context/save", ["context": "main"]).get()
        s.endOfCycle()
        return s
    }

    private func contacts(_ s: Server) throws -> JSON {
        try s.call("context/fetch", ["context": "main", "request": ["entity": "Contact"]]).get()
    }

    @Test func objectsAndColumnsGetTheSameAnswer() throws {
        var rng = Rng(state: 0x9E37_79B9_7F4A_7C15)
        var written = 0
        for _ in 0..<60 {
            // Half the requests are wild (any value, unknown or missing keys), half valid.
            let wild = rng.next(2) == 0
            // Which keys this request gives (in a random order), then its rows.
            var keys = Self.keys.filter { k in
                wild ? rng.next(3) != 0 : k == "name" || (k != "nope" && rng.next(2) == 0)
            }
            keys.shuffle(using: &rng)
            let rows = (0..<(1 + rng.next(6))).map { _ in keys.map { Self.value($0, wild: wild, &rng) } }
            var objects: [JSON] = []
            for row in rows {
                var o = JSONObject()
                for (k, v) in zip(keys, row) { o[k] = v }
                objects.append(.object(o))
            }
            let a = try server()
            let b = try server()
            let byObjects = a.call("store/batchInsert", ["entity": "Contact", "objects": .array(objects)])
            let byColumns = b.call(
                "store/batchInsert",
                [
                    "entity": "Contact", "keys": .array(keys.map { .string($0) }),
                    "rows": .array(rows.map { .array($0) }),
                ])
            a.endOfCycle()
            b.endOfCycle()
            switch (byObjects, byColumns) {
            case (.success(let x), .success(let y)):
                #expect(x == y)
                #expect(try contacts(a) == contacts(b))
                written += 1
            case (.failure(let x), .failure(let y)):
                #expect(x.code == y.code && x.message == y.message && x.data == y.data, "\(keys) \(rows)")
            default:
                Issue.record("the forms disagree on \(keys) \(rows): \(byObjects) vs \(byColumns)")
            }
        }
        // Both outcomes were exercised.
        #expect(written > 0 && written < 60)
    }

    /// A row of `rows` that is not an array is named, and nothing is written.
    @Test func aRowThatIsNotAnArrayIsNamed() throws {
        let s = try server()
        let result = s.call(
            "store/batchInsert", ["entity": "Contact", "keys": ["name"], "rows": [["Ann"], "Bob", ["Cy"]]])
        guard case .failure(let e) = result else {
            Issue.record("accepted: \(result)")
            return
        }
        #expect(e.code == -32602)
        #expect(e.data?["param"] == "rows[1]")
        #expect(try contacts(s)["objects"]?.arrayValue?.isEmpty == true)
    }

    /// An item that fails its check deep in a list is named by its own index (the path of an
    /// item is made only once it fails).
    @Test func aBadItemIsNamedByItsIndex() throws {
        let s = try server()
        for (params, param) in [
            (
                [
                    "entity": "Contact", "ids": ["Contact/1", "Contact/2", "Contact", "x"], "keys": ["name"],
                    "rows": [["a"], ["b"], ["c"], ["d"]],
                ] as JSON, "ids[2]"
            ),
            (
                ["entity": "Contact", "objects": [["id": "Contact/1", "values": [:]], ["values": [:]]]], "objects[1].id"
            ),
        ] {
            guard case .failure(let e) = s.call("store/batchUpdateObjects", params) else {
                Issue.record("accepted: \(params)")
                continue
            }
            #expect(e.code == -32602 && e.data?["param"] == .string(param), "\(e)")
        }
    }
}

extension BatchInsertFormsTests.Rng: RandomNumberGenerator {}
