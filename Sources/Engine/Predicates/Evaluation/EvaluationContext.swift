import Model

/// One in-memory evaluation: the evaluated object (scope 0) and the collection elements
/// bound so far (scope n is `frames[n - 1]`), with the view that resolves relationships.
struct EvaluationContext {
    struct Frame {
        var id: ObjectID
        var values: Snapshot
    }

    let view: ObjectView
    let rootID: ObjectID
    let rootValues: Snapshot
    var frames: [Frame] = []

    init(view: ObjectView, id: ObjectID, values: Snapshot) {
        self.view = view
        self.rootID = id
        self.rootValues = values
    }

    @inline(__always)
    func value(_ key: String, scope: Int) -> Value {
        (scope == 0 ? rootValues[key] : frames[scope - 1].values[key]) ?? .null
    }

    @inline(__always)
    func id(scope: Int) -> ObjectID { scope == 0 ? rootID : frames[scope - 1].id }

    @inline(__always)
    func values(scope: Int) -> Snapshot { scope == 0 ? rootValues : frames[scope - 1].values }

    mutating func push(_ scope: Int, _ id: ObjectID, _ values: Snapshot) {
        precondition(frames.count == scope - 1, "scopes nest")
        frames.append(Frame(id: id, values: values))
    }

    mutating func pop() { frames.removeLast() }
}
