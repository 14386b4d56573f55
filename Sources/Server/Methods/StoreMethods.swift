extension Server {
    /// `store/open`; the CLI's `--store/--model` calls it too.
    func storeMethods() -> [MethodTable.Entry] {
        let state = contexts
        return [
            StoreDeclarations.open.handle { [unowned self] request in
                let model = try WireModel.decode(request.model)
                let store = try state.open(request.location, model: model, log: { [logger] in logger.warning("\($0)") })
                // The next merge takes every transaction after it (its own too: another run's).
                watchState.mergeOwed = request.historyToken != nil
                if let token = request.historyToken { store.mergeCursor = min(token, try store.currentToken) }
                return OpenStoreResult(entities: model.entities.map(\.name), migrated: store.migrated)
            }
        ]
    }
}
