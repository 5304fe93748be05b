/// The engine's durable state, one JSON document.
struct PersistedState: Codable, Sendable, Equatable {
    /// Format version; a file with another version is ignored with a log line.
    static let currentVersion = 1

    var version: Int = PersistedState.currentVersion
    /// The project whose client wrote the file; absent in files of earlier versions.
    var projectToken: String?
    /// The current customer ids, cookie included.
    var customerIds: [String: String]
    /// The hard ids last linked to the cookie successfully.
    var linkedIds: [String: String]
    /// What the callbacks were last told.
    var lastKnown: LastKnown?
    /// Uploads that had not succeeded when the client stopped, in order.
    var pendingUploads: [UploadItem]

    struct LastKnown: Codable, Sendable, Equatable {
        var customerIds: [String: String]
        var categories: [String: [Segment]]
    }
}

/// One unit of upload work, in tracking order.
enum UploadItem: Codable, Sendable, Equatable {
    case event(TrackedEvent)
    case customer(CustomerUpdate)
}
