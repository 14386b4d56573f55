extension Server {
    /// Every declaration bound to its handler, in the document's order: each namespace adds
    /// its line here. Server notifications are listed too (they are sent, not dispatched).
    func registerAllMethods() {
        methods.add(lifecycleMethods())
        methods.ignore(LifecycleDeclarations.dollarNotifications)
        methods.declare(ProgressDeclarations.notifications)
        methods.add(serverMethods())
        methods.add(storeMethods())
        methods.add(batchMethods())
        methods.add(historyMethods())
        methods.declare(HistoryDeclarations.notifications)
        methods.add(contextMethods())
        methods.add(introspectionMethods())
        methods.add(undoMethods())
        methods.add(controllerMethods())
        methods.declare(ControllerNotifications.descriptions)
    }
}
