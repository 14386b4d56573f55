extension Server {
    /// `store/open`; the CLI's `--store/--model` calls it too.
    func storeMethods() -> [MethodTable.Entry] {
        let state = contexts
        return [
            StoreDeclarations.open.handle { request in
                let model = try WireModel.decode(request.model)
                let store = try state.open(path: request.path, model: model)
                return OpenStoreResult(entities: model.entities.map(\.name), migrated: store.migrated)
            }
        ]
    }
}
