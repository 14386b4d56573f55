import Model

/// A visible section: its name, index title and number of visible rows.
public struct SectionInfo: Equatable, Hashable, Sendable {
    public var name: String
    public var indexTitle: String
    public var numberOfObjects: Int

    public init(name: String, numberOfObjects: Int) {
        self.name = name
        self.indexTitle = SectionInfo.indexTitle(for: name)
        self.numberOfObjects = numberOfObjects
    }

    /// The name's first character uppercased; "" for an empty name.
    public static func indexTitle(for name: String) -> String {
        name.first.map { String($0).uppercased() } ?? ""
    }

    /// A section key value written as text (protocol.md §9): "" for null, strings as they are,
    /// numbers in shortest JSON form, true/false, dates in ISO 8601.
    public static func name(for value: Value) -> String {
        switch value {
        case .null: return ""
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .double(let d):
            // Integral doubles print as JSON integers ("3", not "3.0").
            if d == d.rounded(), abs(d) < 9.0e15 { return String(Int64(d)) }
            return String(describing: d)
        case .bool(let b): return b ? "true" : "false"
        case .date(let t): return ISO8601.format(t)
        case .uuid(let u): return u
        case .binary(let bytes): return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        case .object(let id): return id.description
        case .objects(let ids): return ids.map(\.description).joined(separator: ",")
        }
    }
}

/// A row position among the visible results: section index, then row within it.
public struct IndexPath: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var section: Int
    public var row: Int

    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (a: IndexPath, b: IndexPath) -> Bool {
        a.section != b.section ? a.section < b.section : a.row < b.row
    }

    public var description: String { "[\(section), \(row)]" }
}
