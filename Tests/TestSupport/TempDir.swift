#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A scratch directory per test, removed afterwards.
public final class TempDir {
    public let path: String
    public init() {
        var template = Array("/tmp/fetchd-store-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }
    deinit {
        if let d = opendir(path) {
            while let entry = readdir(d) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink("\(path)/\(name)") }
            }
            closedir(d)
        }
        rmdir(path)
    }
    public func file(_ name: String) -> String { "\(path)/\(name)" }
}

/// The file's bytes, or nil when it does not exist.
public func fileBytes(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return out
}
