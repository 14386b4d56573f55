extension Server {
    /// Every method area, in one place. Each area adds its one line here.
    func registerAllMethods() {
        registerLifecycleMethods()
        registerServerMethods()
        registerStoreMethods()
        registerContextMethods()
        registerControllerMethods()
    }
}
