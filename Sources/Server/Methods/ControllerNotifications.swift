import Controllers
import JSON
import JSONRPC
import Model

/// What a change cycle sends for a controller (protocol.md §10), in this order.
public enum ControllerNotifications {
    public static let willChangeContent = ServerNotification<ControllerName>(
        "controller/willChangeContent", "A controller's results are about to change (a batch begins).")
    public static let didChangeSection = ServerNotification<SectionChange>(
        "controller/didChangeSection", "A section was inserted or deleted.")
    public static let didChangeObject = ServerNotification<ObjectChange>(
        "controller/didChangeObject", "A row was inserted, deleted, moved or updated.")
    public static let didChangeContent = ServerNotification<ControllerName>(
        "controller/didChangeContent", "The batch ends: apply it (protocol.md §11).")
    /// The whole cycle in one message, for a controller created with `notify: {mode: "difference"}`.
    public static let didChange = ServerNotification<ControllerDifference>(
        "controller/didChange", "A whole change cycle in one message (notify mode \"difference\", protocol.md §10.8).")

    /// A cycle could not fetch the controller's results: it sends no change this time.
    public static let didFailToFetch = ServerNotification<FetchFailure>(
        "controller/didFailToFetch",
        "A cycle could not fetch a controller's results: it kept them and fetches at its next cycle "
            + "(protocol.md §10.9).")

    /// In wire order, for the method table.
    public static let descriptions = [
        willChangeContent.description, didChangeSection.description,
        didChangeObject.description, didChangeContent.description, didChange.description,
        didFailToFetch.description,
    ]
}

public struct FetchFailure: NotificationPayload {
    public static let params: [ParamSpec] = [
        controllerParam.spec,
        .required(
            "error",
            .object(
                [("code", .integer), ("message", .string), ("data", .ref("ErrorData"))],
                required: ["code", "message", "data"], closed: true),
            "Why, as a failed request's error (protocol.md §3)."),
    ]
    let controller: String
    let error: EngineError
    public var json: JSON {
        .object(["controller": .string(controller), "error": ErrorTable.rpcError(error).json])
    }
}

public struct ControllerName: NotificationPayload, EncodedParams {
    public static let params = [controllerParam.spec]
    let controller: String
    public var json: JSON { .object(["controller": .string(controller)]) }

    /// Two of these go out every cycle in rows mode: written without a tree.
    public func write(to writer: inout JSONWriter) {
        writer.writeRaw("{\"controller\":")
        writer.write(string: controller)
        writer.writeRaw("}")
    }
}

public struct SectionChange: NotificationPayload {
    public static let params: [ParamSpec] = [
        controllerParam.spec,
        .required("type", .ref("SectionChangeType")),
        .required("sectionIndex", .integer, "OLD index for a delete, NEW index for an insert."),
        .required("section", .ref("SectionInfo")),
    ]
    let controller: String
    let type: ControllerEvent.SectionChange
    let sectionIndex: Int
    let section: SectionInfo
    public var json: JSON {
        .object([
            "controller": .string(controller), "type": .string(type.rawValue),
            "sectionIndex": .integer(Int64(sectionIndex)), "section": ControllerWire.section(section),
        ])
    }
}

extension Outbox {
    /// Queues one cycle of a controller: a notification per event (mode "rows"), or one
    /// `controller/didChange` (mode "difference"). An empty cycle sends nothing either way.
    /// `values` holds what the cycle's other controllers of the context already read.
    func send(_ events: [ControllerEvent], of entry: ControllersState.Entry, values: CycleValues) {
        send(.events(events), of: entry, values: values)
    }

    /// A fill goes into `controller/didChange` as it is; rows mode spells it out per row.
    func send(_ cycle: CycleNotifications, of entry: ControllersState.Entry, values: CycleValues) {
        switch (cycle, entry.delivery) {
        case (.events(let events), _) where events.isEmpty: return
        case (.failed(let error), _):
            send(ControllerNotifications.didFailToFetch, FetchFailure(controller: entry.controller.name, error: error))
        case (.filled(let fill), .difference):
            send(ControllerNotifications.didChange, ControllerDifference(fill, of: entry, values: values))
        case (_, .difference):
            send(ControllerNotifications.didChange, ControllerDifference(cycle.events, of: entry, values: values))
        case (_, .rows):
            let label = entry.label
            for event in cycle.events { send(event, of: entry, labeled: label, values: values) }
        }
    }

    /// Queues one controller event as its notification; `label` is the controller's, encoded
    /// once.
    func send(
        _ event: ControllerEvent, of entry: ControllersState.Entry, labeled label: ControllerLabel, values: CycleValues
    ) {
        let name = label.name
        switch event {
        case .willChangeContent:
            send(ControllerNotifications.willChangeContent, ControllerName(controller: name))
        case .didChangeContent:
            send(ControllerNotifications.didChangeContent, ControllerName(controller: name))
        case .section(let type, let index, let info):
            send(
                ControllerNotifications.didChangeSection,
                SectionChange(controller: name, type: type, sectionIndex: index, section: info))
        case .object(let type, let id, let old, let new):
            let object = type == .delete ? nil : values.object(id, for: entry)
            send(
                ControllerNotifications.didChangeObject,
                ObjectChange(controller: label, type: type, id: id, indexPath: old, newIndexPath: new, object: object))
        }
    }
}
