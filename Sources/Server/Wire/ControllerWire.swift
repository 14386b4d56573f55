import Controllers
import JSON
import Model

/// Controller values on the wire (protocol.md §9-10).
enum ControllerWire {
    static func section(_ info: SectionInfo) -> JSON {
        .object([
            "name": .string(info.name), "indexTitle": .string(info.indexTitle),
            "numberOfObjects": .integer(Int64(info.numberOfObjects)),
        ])
    }

    static func sections(_ infos: [SectionInfo]) -> JSON { .array(infos.map(section)) }

    static func indexPath(_ path: IndexPath) -> JSON {
        .array([.integer(Int64(path.section)), .integer(Int64(path.row))])
    }
}
