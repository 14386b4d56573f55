import SQLite

#if canImport(Glibc)
    import Glibc
#endif

extension SQLiteStore {
    /// Whether the connection could only open the file for reading.
    public var isReadOnly: Bool { (try? connection)?.isReadOnly ?? false }

    /// Whether `path` names this store's file (the same inode, however it is spelled).
    public func isSameFile(as other: String) -> Bool {
        var a = stat()
        var b = stat()
        return stat(path, &a) == 0 && stat(other, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
