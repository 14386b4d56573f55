import CSQLite

extension Connection {
    /// Turns this connection's triggers on or off (other connections keep theirs); returns
    /// whether they are on now.
    @discardableResult
    public func setTriggersEnabled(_ on: Bool) -> Bool {
        csqlite_enable_triggers(handle, on ? 1 : 0) == 1
    }
}
