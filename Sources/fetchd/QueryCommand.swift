import ArgumentParser
import JSON
import Server

/// `fetchd query`: one `context/fetch` on the store, printed for a pipeline (protocol.md §1.7).
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch once from a store and print the objects (ndjson, csv or table).",
        discussion: CLIExit.summary)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var fetch: FetchOptions

    @Option(help: "ndjson (one wire object per line), csv (header + rows) or table.")
    var format: RowFormat = .ndjson

    func validate() throws {
        if storeOptions.store == nil { throw ValidationError("query needs --store") }
    }

    func run() throws {
        let server = StoreOptions.makeServer("query")
        defer { server.close() }
        let model = try storeOptions.open(server, command: "query", create: false)
        var params: JSONObject = ["context": "main", "request": fetch.request]
        if let keys = fetch.keyList { params["keys"] = .array(keys.map(JSON.string)) }
        let objects: [JSON]
        switch server.call(ContextDeclarations.fetch.name, .object(params)) {
        case .success(let result):
            objects = result["objects"]?.arrayValue ?? []
        case .failure(let error):
            throw CLIExit.fail("query", error, code: CLIExit.code(forRequestError: error))
        }
        let printer = RowPrinter(columns: Columns.of(entity: fetch.entity, keys: fetch.keyList, model: model))
        let out = Stdout()
        switch format {
        case .ndjson:
            for object in objects { out.line(printer.ndjson(object)) }
        case .csv:
            out.line(printer.csvHeader())
            for object in objects { out.line(printer.csvRow(object)) }
        case .table:
            for line in printer.table(objects) { out.line(line) }
        }
        out.flush()
    }
}
