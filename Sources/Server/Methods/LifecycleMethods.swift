extension Server {
    func lifecycleMethods() -> [MethodTable.Entry] {
        [
            LifecycleDeclarations.initialize.handle { [unowned self] request in
                lifecycle.initialized = true
                if let name = request.clientName {
                    logger.info("client: \(name) \(request.clientVersion ?? "")")
                }
                return InitializeResult(version: configuration.version, capabilities: capabilities)
            },
            LifecycleDeclarations.initialized.handle { _ in },
            LifecycleDeclarations.shutdown.handle { [unowned self] _ in
                lifecycle.shutdownRequested = true
                return NullResult()
            },
            LifecycleDeclarations.exit.handle { [unowned self] _ in
                requestExit(lifecycle.shutdownRequested ? 0 : 1)
            },
            LifecycleDeclarations.cancelRequest.handle { _ in },
        ]
    }
}
