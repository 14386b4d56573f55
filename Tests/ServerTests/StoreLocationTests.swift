import JSON
import Testing

@testable import Server

/// `--store` and `store/open`'s `url`: which values name a PostgreSQL server, and how they are checked.
@Suite struct StoreLocationTests {
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
