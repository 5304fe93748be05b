import Logging

/// Calls `onLog` with the text of every line (on the logging thread).
struct CallingLogHandler: LogHandler {
    let onLog: @Sendable (String) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { onLog(event.message.description) }
}

