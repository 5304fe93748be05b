import Foundation
@testable import RealtimeSegments

/// The state file (`StateStore.load`) read from disk as the engine reads it at start: every file
/// loads or is reported corrupt (to be set aside), never unreadable (it is a regular file), a
/// crash or a hang.
enum StateFileTarget {
    private static let store: StateStore = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("segments-fuzz-state-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return StateStore(directory: directory)
    }()

    static func run(_ data: Data) {
        try! data.write(to: store.fileURL)
        switch store.load() {
        case .loaded(let state): check(state.version == PersistedState.currentVersion, "loaded version \(state.version)")
        case .corrupt: break
        case .missing: check(false, "a written file reported missing")
        case .unreadable(let reason): check(false, "a written regular file reported unreadable: \(reason)")
        }
    }
}
