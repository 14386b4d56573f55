extension Server {
    func serverMethods() -> [MethodTable.Entry] {
        [
            ServerDeclarations.discover.handle { [unowned self] _ in DiscoverResult(document: openRPCDocument) },
            ServerDeclarations.ping.handle { _ in EmptyResult() },
            ServerDeclarations.echo.handle { EchoResult(value: $0.value) },
        ]
    }
}
