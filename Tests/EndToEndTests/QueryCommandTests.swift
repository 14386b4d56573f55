import Foundation
import JSON
import Testing

/// `fetchd query` over a store made by `fetchd exec`: each format, the exit codes, and a bad
/// predicate reported with the wire's own message.
@Suite struct QueryCommandTests {
    @Test func ndjsonIsOneWireObjectPerLine() throws {
        let store = try CLIStore()
        let (output, stderr, status) = try FetchdProcess.run(
            ["query", "--store", store.path, "--entity", "Contact", "--sort", "-age", "--keys", "name,age"], input: "")
        #expect(status == 0, "\(stderr)")
        #expect(
            output == """
                {"id":"Contact/3","name":"Zoë","age":40}
                {"id":"Contact/1","name":"Ana","age":31}
                {"id":"Contact/2","name":"Bob \\"B\\"","age":25}

                """)
    }

    @Test func csvHasAHeaderAndRFC4180Quoting() throws {
        let store = try CLIStore()
        let (output, stderr, status) = try FetchdProcess.run(
            ["query", "--store", store.path, "--entity", "Contact", "--sort", "name", "--format", "csv"], input: "")
        #expect(status == 0, "\(stderr)")
        #expect(
            output == #"""
                id,name,age,city
                Contact/1,Ana,31,"Lyon, FR"
                Contact/2,"Bob ""B""",25,
                Contact/3,Zoë,40,Oslo

                """#)
    }

    @Test func tableAlignsColumns() throws {
        let store = try CLIStore()
        let (output, stderr, status) = try FetchdProcess.run(
            [
                "query", "--store", store.path, "--entity", "Contact", "--predicate", "age > 26", "--keys", "name,city",
                "--format", "table",
            ], input: "")
        #expect(status == 0, "\(stderr)")
        #expect(
            output == """
                id         name  city
                ---------  ----  --------
                Contact/1  Ana   Lyon, FR
                Contact/3  Zoë   Oslo

                """)
    }

    /// Columns line up in terminal cells: a CJK character or an emoji takes two, a combining
    /// mark none (counted in characters, 日本語のメモ pushed its neighbours left).
    @Test func tableAlignsWideCharactersByTerminalCells() throws {
        let store = try CLIStore()
        let added = try FetchdProcess.run(
            ["exec", "-", "--store", store.path],
            input: [
                CLIStore.insert(#"{"name":"日本語のメモ","age":50,"city":"東京"}"#, id: 1),
                CLIStore.insert(#"{"name":"👍 ok","age":51,"city":"Cafe\u0301"}"#, id: 2),
                CLIStore.request(3, "context/save", #"{"context":"main"}"#),
            ].joined(separator: "\n") + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        let (output, stderr, status) = try FetchdProcess.run(
            [
                "query", "--store", store.path, "--entity", "Contact", "--predicate", "age >= 50", "--sort", "age",
                "--keys", "name,city", "--format", "table",
            ], input: "")
        #expect(status == 0, "\(stderr)")
        #expect(
            output == """
                id         name          city
                ---------  ------------  ----
                Contact/4  日本語のメモ  東京
                Contact/5  👍 ok         Cafe\u{301}

                """)
    }

    @Test func limitAndOffsetCutTheSortedRows() throws {
        let store = try CLIStore()
        let (output, stderr, status) = try FetchdProcess.run(
            [
                "query", "--store", store.path, "--entity", "Contact", "--sort", "age", "--offset", "1", "--limit", "1",
                "--keys", "name", "--format", "csv",
            ], input: "")
        #expect(status == 0, "\(stderr)")
        #expect(output == "id,name\nContact/1,Ana\n")
    }

    /// Exit 64 with the message a `context/fetch` of the same predicate gets over the wire.
    @Test func aBadPredicateExits64WithTheWiresMessage() throws {
        let store = try CLIStore()
        let predicate = "age BEGINSWITH 3"
        let (output, stderr, status) = try FetchdProcess.run(
            ["query", "--store", store.path, "--entity", "Contact", "--predicate", predicate], input: "")
        #expect(status == 64)
        #expect(output.isEmpty)
        let params = #"{"context":"main","request":{"entity":"Contact","predicate":"\#(predicate)"}}"#
        let request = CLIStore.request(1, "context/fetch", params)
        let wire = try FetchdProcess.run(["--store", store.path, "--model", store.modelPath], input: request + "\n")
        let error = try JSON.parse(Array(wire.output.utf8))["error"]
        let message = try #require(error?["message"]?.stringValue)
        #expect(stderr.contains("fetchd query: \(message)\n"), "\(stderr)")
        #expect(stderr.contains(error!.serializedString), "the error object, as on the wire")
    }

    @Test func variablesAreAJSONObject() throws {
        let store = try CLIStore()
        let arguments = [
            "query", "--store", store.path, "--entity", "Contact", "--keys", "name",
            "--predicate", "name BEGINSWITH[cd] $p OR city IN $cities",
        ]
        let values = #"{"p": "z", "cities": ["Lyon, FR"]}"#
        let found = try FetchdProcess.run(arguments + ["--variables", values], input: "")
        #expect(found.status == 0, "\(found.stderr)")
        #expect(
            found.output == #"{"id":"Contact/1","name":"Ana"}"# + "\n"
                + #"{"id":"Contact/3","name":"Zoë"}"# + "\n")
        let missing = try FetchdProcess.run(arguments + ["--variables", #"{"p": "z"}"#], input: "")
        #expect(missing.status == 64)
        #expect(missing.stderr.contains(#""kind":"missingVariable""#), "\(missing.stderr)")
        let notAnObject = try FetchdProcess.run(arguments + ["--variables", "[1]"], input: "")
        #expect(notAnObject.status == 64)
        #expect(notAnObject.stderr.contains("--variables must be a JSON object"))
    }

    @Test func aSyntaxErrorAndAnUnknownSortKeyExit64() throws {
        let store = try CLIStore()
        let syntax = try FetchdProcess.run(
            ["query", "--store", store.path, "--entity", "Contact", "--predicate", "age >"], input: "")
        #expect(syntax.status == 64)
        #expect(syntax.stderr.contains("\"kind\":\"predicateSyntax\""), "\(syntax.stderr)")
        let sort = try FetchdProcess.run(
            ["query", "--store", store.path, "--entity", "Contact", "--sort", "-height"],
            input: "")
        #expect(sort.status == 64)
        #expect(sort.stderr.contains("\"kind\":\"unknownKey\""), "\(sort.stderr)")
    }

    @Test func noSuchStoreExits66AndCreatesNothing() throws {
        let store = try CLIStore()
        let missing = store.dir.file("missing.db")
        let (_, stderr, status) = try FetchdProcess.run(
            ["query", "--store", missing, "--entity", "Contact"], input: "")
        #expect(status == 66)
        #expect(stderr.contains("no such store"))
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func aFileThatIsNotAStoreExits65() throws {
        let store = try CLIStore()
        let other = store.dir.file("other.db")
        try "not sqlite at all".write(toFile: other, atomically: true, encoding: .utf8)
        let (_, stderr, status) = try FetchdProcess.run(["query", "--store", other, "--entity", "Contact"], input: "")
        #expect(status == 65)
        #expect(stderr.contains("\"kind\":\"storeError\""), "\(stderr)")
    }
}
