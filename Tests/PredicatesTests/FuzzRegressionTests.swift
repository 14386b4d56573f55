import Foundation
import Model
import Testing

@testable import Predicates

/// Replays Fuzz/Regressions/FuzzPredicate through the fuzz target's check: a predicate either
/// compiles to SQL or is an EngineError, never a crash or a stack overflow.
@Suite struct PredicateFuzzRegressionTests {
    static let directory = #filePath.components(separatedBy: "/Tests/")[0] + "/Fuzz/Regressions/FuzzPredicate"
    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func thereAreRegressionInputs() { #expect(!Self.files.isEmpty) }

    @Test(arguments: files)
    func compilesOrIsAnError(_ file: String) throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + file)))
        let text = String(decoding: data, as: UTF8.self)
        let compiler = RequestCompiler(model: Library.model)
        do {
            let compiled = try compiler.compile(FetchRequest(entity: "Author", predicate: text))
            #expect(!compiled.filter.sql(alias: "t").text.isEmpty)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }
}
