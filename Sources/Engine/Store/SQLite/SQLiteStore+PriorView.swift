import Model
import Predicates
import SQLite

extension SQLiteStore: HistoryBackedStore {
    public func priorObjects(_ transactions: [HistoryTransaction]) throws(EngineError) -> [ObjectID: StoredObject?] {
        try priorObjectsFromHistory(transactions)
    }
}

extension SQLiteStore {
    /// A row's recorded old values (`HistorySchema.oldValues`).
    func decodeOld(_ json: String?, _ t: EntityTable) throws(EngineError) -> Snapshot {
        var values: Snapshot = [:]
        guard let json else { return values }
        do {
            let s = try connection.prepare("SELECT value FROM json_each(?) ORDER BY CAST(key AS INTEGER)")
            defer { s.reset() }
            try s.bind(.text(json), at: 1)
            var i = 0
            let columns = HistorySchema.columns(t.entity)
            while try s.step(), i < columns.count {
                let raw = s.value(0)
                let (name, type) = columns[i]
                i += 1
                guard let type else {
                    let r = t.toOne.first { $0.name == name }!
                    values[name] = ValueEncoding.reference(raw, to: r.destination)
                    continue
                }
                var v = raw
                if case .text(let text) = raw {
                    switch type {
                    case .double, .date: v = Double(text).map(SQLValue.real) ?? raw
                    case .binary: v = .blob(Self.unhex(text))
                    default: break
                    }
                }
                values[name] = ValueEncoding.value(v, as: type)
            }
        } catch { throw Self.storeError(error, "reading the history") }
        return values
    }

    private static func unhex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        for c in text.utf8 {
            let d: UInt8 = c >= 65 ? (c & 0x5f) - 55 : c - 48
            if let h = high {
                out.append(h << 4 | d)
                high = nil
            } else {
                high = d
            }
        }
        return out
    }
}
