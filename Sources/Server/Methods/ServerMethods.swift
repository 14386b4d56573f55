import JSON

extension Server {
    /// Diagnostics for clients and benchmarks: `server/ping` -> `{}`, `server/echo {value}` -> value.
    func registerServerMethods() {
        methods.register("server/ping") { _ in EmptyResult() }
        methods.register("server/echo") { params in try params.json("value") }
    }
}
