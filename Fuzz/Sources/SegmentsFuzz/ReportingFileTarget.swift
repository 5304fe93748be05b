import Foundation
import Logging
@testable import RealtimeSegments

/// A reporting segments file (`ReportingFileStore.loadAll`) read from disk as at start: every file
/// is restored or logged as corrupt and skipped, never a crash or a hang.
enum ReportingFileTarget {
    private static let store: ReportingFileStore = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("segments-fuzz-reporting-\(UUID().uuidString)")
        let store = ReportingFileStore(stateDirectory: directory, logger: Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() })
        try! FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        return store
    }()

    static func run(_ data: Data) {
        // One file per input: restore renames a file to its visitor's name, and moves a corrupt
        // one aside, so what an earlier input left is cleared first.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? [] {
            try? FileManager.default.removeItem(at: store.directory.appendingPathComponent(name))
        }
        try! data.write(to: store.directory.appendingPathComponent("visitor-fuzz.json"))
        let loaded = store.loadAll()
        check(loaded.entries.count <= 1, "one file restored as \(loaded.entries.count) visitors")
    }
}
