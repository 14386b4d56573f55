import CSQLite

/// The running state of one group of a registered aggregate function.
public protocol SQLAggregateState: AnyObject {
    func step(_ arguments: [SQLValue])
    func result() -> SQLValue
}

private final class AggregateBox {
    let make: () -> any SQLAggregateState
    init(_ make: @escaping () -> any SQLAggregateState) { self.make = make }
}

/// Holds a state object behind the pointer-sized slot SQLite gives each group.
private final class StateHolder {
    let state: any SQLAggregateState
    init(_ state: any SQLAggregateState) { self.state = state }
}

extension Connection {
    /// Registers a deterministic aggregate SQL function; `make` creates the state of each group.
    public func createAggregate(
        _ name: String, arity: Int32,
        _ make: @escaping () -> any SQLAggregateState
    ) throws(SQLiteError) {
        let box = AggregateBox(make)
        retained.append(box)
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let rc = sqlite3_create_function_v2(
            handle, name, arity, flags, Unmanaged.passUnretained(box).toOpaque(), nil,
            { ctx, argc, argv in
                guard
                    let slot = sqlite3_aggregate_context(ctx, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))?
                        .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
                else {
                    sqlite3_result_error_nomem(ctx)
                    return
                }
                if slot.pointee == nil {
                    let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(ctx)).takeUnretainedValue()
                    slot.pointee = Unmanaged.passRetained(StateHolder(box.make())).toOpaque()
                }
                let holder = Unmanaged<StateHolder>.fromOpaque(slot.pointee!).takeUnretainedValue()
                var args: [SQLValue] = []
                args.reserveCapacity(Int(argc))
                for i in 0..<Int(argc) { args.append(SQLValue(sqlite: argv![i]!)) }
                holder.state.step(args)
            },
            { ctx in
                let slot = sqlite3_aggregate_context(ctx, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
                let state: any SQLAggregateState
                if let raw = slot?.pointee {
                    state = Unmanaged<StateHolder>.fromOpaque(raw).takeRetainedValue().state
                    slot?.pointee = nil
                } else {
                    state = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(ctx)).takeUnretainedValue().make()
                }
                setResult(ctx, state.result())
            }, nil)
        guard rc == SQLITE_OK else { throw lastError }
    }
}

/// Hands a function's or aggregate's result to SQLite (text and blobs copied).
func setResult(_ ctx: OpaquePointer?, _ value: SQLValue) {
    switch value {
    case .null: sqlite3_result_null(ctx)
    case .integer(let v): sqlite3_result_int64(ctx, v)
    case .real(let v): sqlite3_result_double(ctx, v)
    case .text(let s):
        var s = s
        s.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) {
                sqlite3_result_text(ctx, $0.baseAddress ?? emptyText, Int32($0.count), csqlite_transient())
            }
        }
    case .blob(let b):
        b.withUnsafeBytes { sqlite3_result_blob(ctx, $0.baseAddress, Int32($0.count), csqlite_transient()) }
    }
}
