public enum FetchdVersion {
    public static let current = "0.1.0"
    /// The wire protocol's version, reported by `initialize`; bumped on incompatible changes.
    public static let protocolVersion = 1
}
