import Foundation
import Synchronization
import XCTest

@testable import RealtimeSegments

/// Two clients of one process on one state directory whose lock could not be taken (a file
/// system without `flock`) both save there. Each save stays whole: one replaces the other, and
/// neither fails or leaves a file written by both.
final class StateStoreSharingTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rs-state-sharing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func state(cookie: String) -> PersistedState {
        PersistedState(projectToken: "p", customerIds: [CustomerIdKey.cookie: cookie], linkedIds: [:], lastKnown: nil, pendingUploads: [])
    }

    /// The second client saves while the first has written its temporary file and not renamed it.
    func testASaveBetweenAnotherSavesWriteAndRenameLeavesBothWhole() throws {
        let second = StateStore(directory: directory)
        let secondSave = state(cookie: "second")
        let secondError = Mutex<String?>(nil)
        var first = StateStore(directory: directory)
        first.beforeRenameForTesting = {
            do { _ = try second.save(secondSave) } catch { secondError.withLock { $0 = "\(error)" } }
        }
        XCTAssertNoThrow(try first.save(state(cookie: "first")), "the first save failed")
        XCTAssertNil(secondError.withLock { $0 }, "the second save failed")
        guard case .loaded(let saved) = StateStore(directory: directory).load() else { return XCTFail("no whole state file") }
        XCTAssertEqual(saved.customerIds[CustomerIdKey.cookie], "first", "the save renamed last is the file")
    }
}
