import Controllers
import JSON
import JSONRPC
import Model

/// `controller/didChangeObject`'s params. In rows mode a cycle sends one per controller per
/// changed row (100,000 for 1000 controllers and 100 changes), so they write their own bytes:
/// what a controller's messages share is encoded once per controller, each object's JSON once
/// per cycle, and both spliced in; no JSON tree is built per message.
public struct ObjectChange: NotificationPayload, EncodedParams {
    public static let params: [ParamSpec] = [
        controllerParam.spec,
        .required("type", .ref("ObjectChangeType")),
        idParam.spec,
        .optional("indexPath", .ref("IndexPath"), "OLD index path (delete, move, update)."),
        .optional("newIndexPath", .ref("IndexPath"), "NEW index path (insert, move, update)."),
        .optional(
            "object", .ref("Object"), "Its values as notify chose; absent for deletes and with {objects: false}."),
    ]
    let controller: ControllerLabel
    let type: ControllerEvent.ObjectChange
    let id: ObjectID
    let indexPath: IndexPath?
    let newIndexPath: IndexPath?
    let object: EncodedObject?

    public var json: JSON {
        var params: JSONObject = [
            "controller": .string(controller.name), "type": .string(type.rawValue),
            "id": .string(id.description),
        ]
        if let indexPath { params["indexPath"] = ControllerWire.indexPath(indexPath) }
        if let newIndexPath { params["newIndexPath"] = ControllerWire.indexPath(newIndexPath) }
        if let object { params["object"] = object.json }
        return .object(params)
    }

    /// The bytes of `json`, member for member.
    public func write(to writer: inout JSONWriter) {
        writer.bytes += controller.head
        switch type {
        case .insert: writer.writeRaw("insert\",\"id\":")
        case .delete: writer.writeRaw("delete\",\"id\":")
        case .move: writer.writeRaw("move\",\"id\":")
        case .update: writer.writeRaw("update\",\"id\":")
        }
        if id.entity == controller.entity {
            writer.bytes += controller.idPrefix
            writer.write(integer: id.number)
            writer.writeRaw("\"")
        } else {
            writer.write(id: id)
        }
        if let indexPath {
            writer.writeRaw(",\"indexPath\":[")
            Self.write(indexPath, to: &writer)
        }
        if let newIndexPath {
            writer.writeRaw(",\"newIndexPath\":[")
            Self.write(newIndexPath, to: &writer)
        }
        if let object { writer.bytes += object.member } else { writer.writeRaw("}") }
    }

    /// `ControllerWire.indexPath`'s bytes after its `[`.
    private static func write(_ path: IndexPath, to writer: inout JSONWriter) {
        writer.write(integer: Int64(path.section))
        writer.writeRaw(",")
        writer.write(integer: Int64(path.row))
        writer.writeRaw("]")
    }
}

/// What a controller's `controller/didChangeObject` messages share, encoded once
/// (`ControllersState.Entry.label`).
final class ControllerLabel: Sendable {
    let name: String
    let entity: String
    /// `{"controller":<name>,"type":"`
    let head: [UInt8]
    /// `"<entity>/`: an id of the controller's entity is this, its number and `"`.
    let idPrefix: [UInt8]

    init(name: String, entity: String) {
        self.name = name
        self.entity = entity
        var writer = JSONWriter(capacity: name.utf8.count + 32)
        writer.writeRaw("{\"controller\":")
        writer.write(string: name)
        writer.writeRaw(",\"type\":\"")
        head = writer.bytes
        // Escaping goes byte by byte, so the id's text escaped whole is its parts escaped.
        writer = JSONWriter(capacity: entity.utf8.count + 4)
        writer.write(string: entity + "/")
        writer.bytes.removeLast()
        idPrefix = writer.bytes
    }
}

/// An object's JSON under one projection, as its bytes: made once per cycle, shared by every
/// notification that carries the object.
final class EncodedObject: Sendable {
    /// `,"object":<json>}`: the last member of `ObjectChange` and the end of it.
    let member: [UInt8]
    /// The value it was made from, if it was; one made from a snapshot is read back from its
    /// bytes by a consumer that asks (the MCP face, tests), so it keeps neither the snapshot
    /// nor a closure over it (two allocations and a retained snapshot per row of a cycle).
    private let tree: JSON?

    var json: JSON {
        if let tree { return tree }
        return (try? JSON.parse(Array(member[Self.head.utf8CodeUnitCount..<member.count - 1]))) ?? .null
    }

    init(_ json: JSON) {
        tree = json
        member = Self.member { $0.write(json) }
    }

    /// A stored object under a projection (`keys`: nil for all), written without its tree.
    init(_ id: ObjectID, _ values: Snapshot, entity: Entity, keys: Set<String>? = nil) {
        tree = nil
        member = Self.member { WireObject.write(id, values, entity: entity, keys: keys, to: &$0) }
    }

    private static let head: StaticString = ",\"object\":"

    private static func member(_ object: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.writeRaw(head)
        object(&writer)
        writer.writeRaw("}")
        return writer.bytes
    }
}
