@testable import RealtimeSegments
import Logging
import Synchronization

/// Collects every log line of a client, to assert the exact `Segments:` texts.
final class LogCapture: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
    }

    private let entries = Locked<[Entry]>([])

    func makeLogger() -> Logger {
        var logger = Logger(label: "RealtimeSegmentsTests") { _ in CapturingHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    func record(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    var all: [Entry] { entries.withLock { $0 } }

    var messages: [String] { all.map(\.message) }

    /// Number of lines exactly equal to `message`.
    func count(_ message: String) -> Int { messages.filter { $0 == message }.count }

    /// Number of lines starting with `prefix`.
    func count(prefix: String) -> Int { messages.filter { $0.hasPrefix(prefix) }.count }

    func contains(_ message: String) -> Bool { count(message) > 0 }

    func clear() { entries.withLock { $0.removeAll() } }
}

private struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.record(.init(level: event.level, message: event.message.description))
    }
}
