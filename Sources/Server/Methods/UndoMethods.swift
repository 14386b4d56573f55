import Contexts
import Model

extension Server {
    /// `context/undo`, `redo`, `undoState`, `beginUndoGrouping`, `endUndoGrouping`.
    func undoMethods() -> [MethodTable.Entry] {
        let scope = paramScope
        typealias D = UndoDeclarations
        return [
            D.undo.handle(in: scope) { p in
                try p.context.undo()
                return try Self.undoState(p.context)
            },
            D.redo.handle(in: scope) { p in
                try p.context.redo()
                return try Self.undoState(p.context)
            },
            D.undoState.handle(in: scope) { p in try Self.undoState(p.context) },
            D.beginUndoGrouping.handle(in: scope) { p in
                try p.context.beginUndoGrouping(actionName: p.actionName)
                return try Self.undoState(p.context)
            },
            D.endUndoGrouping.handle(in: scope) { p in
                try p.context.endUndoGrouping()
                return try Self.undoState(p.context)
            },
        ]
    }

    static func undoState(_ context: Context) throws(EngineError) -> UndoStateResult {
        UndoStateResult(state: try context.undoState())
    }
}
