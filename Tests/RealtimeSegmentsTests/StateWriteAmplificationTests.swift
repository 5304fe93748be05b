import Foundation
@testable import RealtimeSegments
import XCTest

/// Issue 30, item 4: once the state file lists unsent uploads, uploads that then succeed do not
/// each rewrite the whole file.
final class StateWriteAmplificationTests: XCTestCase {
    func testUploadsSucceedingAfterAFailureRewriteTheStateFileOnceNotPerUpload() throws {
        let directory = temporaryDirectory()
        let fixture = Fixture(stateDirectory: directory) { $0.maxUploadBatchSize = 1 }
        fixture.transport.failNext(.trackEvents, with: .connectionFailed("offline"))
        fixture.client.start()
        fixture.settle()
        for index in 0..<20 { try fixture.client.trackEvent(eventType: "e\(index)") }
        fixture.settle()
        let writesBefore = fixture.client.statistics.stateWrites
        fixture.advance(.seconds(1))  // the retry, then the other 19 uploads, one event each
        XCTAssertEqual(fixture.transport.trackedEvents.count, 20)
        XCTAssertLessThanOrEqual(fixture.client.statistics.stateWrites - writesBefore, 2, "20 uploads, not 20 rewrites")
        fixture.client.stop()
        guard case .loaded(let state) = StateStore(directory: directory).load() else { return XCTFail("state file") }
        XCTAssertTrue(state.pendingUploads.isEmpty, "the file no longer lists the sent events")
    }
}
