/// Why reports could not be merged.
public enum MergeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No report was given.
    case noReports
    /// A report could not be read (its path and the reason).
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .noReports: "Segments: merge needs at least one report directory"
        case let .unreadable(path, reason): "Segments: merge: cannot read \(path): \(reason)"
        }
    }
}
