import JSON
import Testing

@testable import Server

/// `--store` and `store/open`'s `url`: a server URL's `schema` parameter is fetchd's, not libpq's.
@Suite struct StoreLocationTests {
    @Test func theSchemaParameterIsTakenOutOfTheURL() {
        let cases: [(String, String, String?)] = [
            ("postgresql:///db", "postgresql:///db", nil),
            ("postgresql:///db?schema=notes", "postgresql:///db", "notes"),
            ("postgresql:///db?host=/run/pg&schema=notes", "postgresql:///db?host=/run/pg", "notes"),
            ("postgres://u@h/db?schema=a%20b&sslmode=off", "postgres://u@h/db?sslmode=off", "a b"),
            ("postgresql:///db?host=/tmp&user=postgres", "postgresql:///db?host=/tmp&user=postgres", nil),
        ]
        for (url, plain, schema) in cases {
            let split = StoreLocation.splitSchema(url)
            #expect(split.url == plain, "\(url)")
            #expect(split.schema == schema, "\(url)")
        }
    }

    @Test func onlyPostgreSQLURLsNameAServer() {
        #expect(StoreLocation.isServerURL("postgresql:///db"))
        #expect(StoreLocation.isServerURL("postgres://h/db"))
        #expect(!StoreLocation.isServerURL("notes.sqlite"))
        #expect(!StoreLocation.isServerURL(":memory:"))
        #expect(StoreLocation.openParams(store: "postgres://h/db", model: [:])["url"] == "postgres://h/db")
        #expect(StoreLocation.openParams(store: "a.sqlite", model: [:])["path"] == "a.sqlite")
    }

    @Test func storeOpenRefusesAURLWithAPathAndASchemaWithoutURL() {
        let server = Server()
        let model: JSON = ["entities": []]
        for (params, named) in [
            (["url": "postgresql:///db", "path": "x.sqlite", "model": model] as JSON, "path"),
            (["schema": "s", "model": model], "schema"),
            (["url": "mysql://h/db", "model": model], "url"),
        ] {
            guard case .failure(let e) = server.call("store/open", params) else {
                Issue.record("\(params) was accepted")
                continue
            }
            #expect(e.code == -32602)
            #expect(e.data?["param"]?.stringValue == named)
        }
    }
}
