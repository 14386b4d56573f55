import JSON
import JSONRPC
import Model

struct OpenStore: RPCMethod {
    static let name = "store/open"
    var path: String
    var model: JSON
    init(params: ParamReader) throws {
        path = try params.optionalString("path") ?? ":memory:"
        model = try params.json("model")
    }
}

extension Server {
    /// `store/open {path?, model}` -> `{entities, migrated}`; the CLI's `--store/--model` calls it too.
    func registerStoreMethods() {
        let state = contextsState
        methods.register(OpenStore.self) { request in
            let model = try WireModel.decode(request.model)
            let store = try state.open(path: request.path, model: model)
            return JSON.object(["entities": .array(model.entities.map { .string($0.name) }), "migrated": .bool(store.migrated)])
        }
        onEndOfCycle {
            state.endOfCycle()
            return []
        }
        let logger = self.logger
        onClose {
            state.warnAboutUnsavedChanges(logger)
            state.close()
        }
    }
}
