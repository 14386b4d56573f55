import JSON
import JSONRPC

#if canImport(Glibc)
    import Glibc
#endif

extension Server {
    /// `store/open`; the CLI's `--store/--model` calls it too.
    func storeMethods() -> [MethodTable.Entry] {
        let state = contexts
        return [
            StoreDeclarations.open.handle { [unowned self] request in
                let model = try WireModel.decode(request.model ?? Self.recordedModel(at: request.location))
                let store = try state.open(request.location, model: model, log: { [logger] in logger.warning("\($0)") })
                // The next merge takes every transaction after it (its own too: another run's).
                watchState.mergeOwed = request.historyToken != nil
                if let token = request.historyToken { store.mergeCursor = min(token, try store.currentToken) }
                return OpenStoreResult(entities: model.entities.map(\.name), migrated: store.migrated)
            }
        ]
    }

    /// The model an existing store records, for a `store/open` without `model`; a store that
    /// does not exist yet (or records none) needs one, said as the missing param.
    static func recordedModel(at location: OpenStoreParams.Location) throws(RPCError) -> JSON {
        let recorded: Result<JSON, RPCError>
        switch location {
        case .file(let path):
            // Only an existing file: opening a missing one to read it would create it.
            guard path != ":memory:", access(path, F_OK) == 0 else {
                let why = path == ":memory:" ? "an in-memory store is new" : "\(path) does not exist yet"
                throw .invalidParams(
                    param: "model", expected: "a model (\(why): a new store needs one)", got: "missing")
            }
            recorded = recordedModel(path: path)
        case .server(let url, let schema):
            recorded = recordedModel(url: url, schema: schema)
        }
        switch recorded {
        case .success(let model): return model
        // A file that records no model needs one; one that cannot be read is an I/O failure.
        case .failure(let error) where error.data?["recordsModel"] == false:
            throw .invalidParams(param: "model", expected: "a model (\(error.message))", got: "missing")
        case .failure(let error): throw error
        }
    }
}
