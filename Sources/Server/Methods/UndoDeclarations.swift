import Contexts
import JSON
import Model

/// Undo and redo per context (protocol.md §6, "Undo"): NSUndoManager's model. Every method
/// answers the context's undo state, so an Undo menu can follow it.
public enum UndoDeclarations {
    typealias C = ContextDeclarations
    static let errors = C.named + [.engine(.invalidValue)]

    public static let undo = MethodDeclaration<ContextParams, UndoStateResult>(
        "context/undo", "Undoes the context's last group of edits (a change cycle); nothing to undo changes nothing.",
        errors: errors)
    public static let redo = MethodDeclaration<ContextParams, UndoStateResult>(
        "context/redo", "Redoes the last undone group (a change cycle).", errors: errors)
    public static let undoState = MethodDeclaration<ContextParams, UndoStateResult>(
        "context/undoState", "Whether the context can undo or redo, and the action names.", errors: errors)
    public static let beginUndoGrouping = MethodDeclaration<BeginUndoGroupingParams, UndoStateResult>(
        "context/beginUndoGrouping", "Opens an explicit undo group: the edits until its end are one action.",
        errors: errors)
    public static let endUndoGrouping = MethodDeclaration<ContextParams, UndoStateResult>(
        "context/endUndoGrouping", "Closes the innermost open undo group.", errors: errors)
}

public struct UndoStateResult: RPCResult {
    public static let resultName = "undoState"
    public static let schema = Schema.object(
        [
            ("canUndo", .boolean), ("canRedo", .boolean), ("undoActionName", .string), ("redoActionName", .string),
            ("undoCount", .integer), ("redoCount", .integer), ("groupingLevel", .integer),
        ],
        required: [
            "canUndo", "canRedo", "undoActionName", "redoActionName", "undoCount", "redoCount", "groupingLevel",
        ],
        closed: true)
    let state: UndoState
    public var json: JSON {
        .object([
            "canUndo": .bool(state.canUndo), "canRedo": .bool(state.canRedo),
            "undoActionName": .string(state.undoActionName), "redoActionName": .string(state.redoActionName),
            "undoCount": .integer(Int64(state.undoCount)), "redoCount": .integer(Int64(state.redoCount)),
            "groupingLevel": .integer(Int64(state.groupingLevel)),
        ])
    }
}

public struct BeginUndoGroupingParams: RPCParams {
    static let actionName = Param<String?>.optional("actionName", .string, "The name an Undo menu shows for the group.")
    public static let params = ParamSpec.list(contextParam, actionName)
    let context: Context
    let actionName: String?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        actionName = try p[Self.actionName]
    }
}
