import Model

@testable import Controllers

/// The results of a query computed from scratch by brute force (protocol.md §10.1), as the
/// mirror must look after every cycle.
func freshResults(
    _ store: any ControllerSource, filter: (any ObjectFilter)?, ordering: any ObjectOrdering, sectioned: Bool,
    offset: Int, limit: Int?
) throws -> Mirror {
    let all = try store.fetchKeys(filter: filter, ordering: ordering)
    let start = min(offset, all.count)
    let end = limit.map { min(all.count, start + $0) } ?? all.count
    var mirror = Mirror()
    if !sectioned { mirror.sections = [Mirror.Section(name: "", rows: [])] }
    for (id, key) in all[start..<end] {
        let name = sectioned ? SectionInfo.name(for: key[0]) : ""
        if mirror.sections.last?.name != name || mirror.sections.isEmpty {
            mirror.sections.append(Mirror.Section(name: name, rows: []))
        }
        mirror.sections[mirror.sections.count - 1].rows.append(Mirror.Row(id: id, values: store.snapshot(of: id)!))
    }
    return mirror
}

/// Checks the wire order of one cycle (protocol.md §10.6); returns the problems found.
func wireOrderProblems(_ events: [ControllerEvent]) -> [String] {
    if events.isEmpty { return [] }
    var problems: [String] = []
    if events.first != .willChangeContent || events.last != .didChangeContent {
        problems.append("not framed by will/did")
    }
    if events.dropFirst().dropLast().contains(where: { $0 == .willChangeContent || $0 == .didChangeContent }) {
        problems.append("will/did inside a batch")
    }
    if events.count == 2 { problems.append("empty will/did pair") }
    // Phase of each event, and the sort key it must follow within its phase.
    func phase(_ e: ControllerEvent) -> (Int, IndexPath) {
        switch e {
        case .section(.delete, let i, _): return (0, IndexPath(section: -i, row: 0))
        case .section(.insert, let i, _): return (1, IndexPath(section: i, row: 0))
        case .object(.delete, _, let old?, _): return (2, IndexPath(section: -old.section, row: -old.row))
        case .object(.move, _, _, let new?): return (3, new)
        case .object(.insert, _, _, let new?): return (4, new)
        case .object(.update, _, _, let new?): return (5, new)
        default: return (9, IndexPath(section: 0, row: 0))
        }
    }
    let inner = events.dropFirst().dropLast().map(phase)
    for (a, b) in zip(inner, inner.dropFirst()) where a.0 > b.0 || (a.0 == b.0 && !(a.1 < b.1)) {
        problems.append("out of order: \(a) then \(b)")
    }
    return problems
}
