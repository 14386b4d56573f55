import Foundation
import JSON
import JSONRPC
import Model
import Server
import Testing

@Suite struct ErrorTableTests {
    /// Every kind declared in the engine's sources (`public static let x = Self("x")` in
    /// EngineError.Kind extensions), read from the files so a new kind without a row fails here.
    static func declaredKinds() throws -> [String] {
        let root = #filePath.components(separatedBy: "/Tests/")[0]
        let engine = root + "/Sources/Engine"
        guard let files = FileManager.default.enumerator(atPath: engine) else { return [] }
        var kinds: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let source = try String(contentsOfFile: engine + "/" + file, encoding: .utf8)
            for line in source.split(separator: "\n") {
                guard let range = line.range(of: "public static let "), line.contains("= Self(\"") else { continue }
                kinds.append(String(line[range.upperBound...].prefix { $0 != " " }))
            }
        }
        return kinds
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
        let e = ErrorTable.rpcError(
            EngineError(
                .typeMismatch, "age must be an integer",
                [
                    ("entity", "Contact"), ("key", "age"), ("expected", "integer"), ("got", .string("string")),
                    ("path", .list([.int(1), .null, .bool(true), .double(0.5)])),
                    ("where", .record([("z", 1), ("a", 2)])),
                ]))
        #expect(e.code == -32602)
        #expect(e.message == "age must be an integer")
        #expect(
            e.data?.serializedString
                == #"{"kind":"typeMismatch","entity":"Contact","key":"age","expected":"integer","got":"string","path":[1,null,true,0.5],"where":{"z":1,"a":2}}"#
        )
    }
}
