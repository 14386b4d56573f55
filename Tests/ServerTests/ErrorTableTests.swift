import Foundation
import Testing
import JSON
import JSONRPC
import Model
import Server

@Suite struct ErrorTableTests {
    /// Every shared kind declared in EngineError.swift, read from the source so a new kind
    /// without a row in the table fails here.
    static func declaredKinds() throws -> [String] {
        let here = #filePath
        let root = here.components(separatedBy: "/Tests/")[0]
        let source = try String(contentsOfFile: root + "/Sources/Engine/Model/EngineError.swift", encoding: .utf8)
        return source.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "public static let "), line.contains("= Self(\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " })
        }
    }

    @Test func everyDeclaredKindHasItsOwnRow() throws {
        let declared = try Self.declaredKinds()
        #expect(declared.count >= 17)
        let listed = Set(ErrorTable.codes.map(\.kind.rawValue))
        for kind in declared { #expect(listed.contains(kind), "\(kind) has no code") }
    }

    @Test func codesAreServerCodesOrInvalidParamsAndDistinct() {
        var seen: [Int: String] = [:]
        for (kind, code) in ErrorTable.codes {
            #expect((-32099 ... -32000).contains(code) || code == -32602, "\(kind.rawValue)")
            if code != -32602 {
                #expect(seen[code] == nil, "\(kind.rawValue) shares \(code) with \(seen[code] ?? "")")
                seen[code] = kind.rawValue
            }
        }
    }

    @Test func unknownKindsAreTheGenericServerError() {
        let e = ErrorTable.rpcError(EngineError(.init("somethingNew"), "new"))
        #expect(e.code == -32000)
        #expect(e.data == ["kind": "somethingNew"])
    }

    @Test func detailsFollowKindInOrder() {
        let e = ErrorTable.rpcError(EngineError(.typeMismatch, "age must be an integer", [
            ("entity", "Contact"), ("key", "age"), ("expected", "integer"), ("got", .string("string")),
            ("path", .list([.int(1), .null, .bool(true), .double(0.5)])), ("where", .record([("z", 1), ("a", 2)])),
        ]))
        #expect(e.code == -32602)
        #expect(e.message == "age must be an integer")
        #expect(e.data?.serializedString
            == #"{"kind":"typeMismatch","entity":"Contact","key":"age","expected":"integer","got":"string","path":[1,null,true,0.5],"where":{"z":1,"a":2}}"#)
    }
}
