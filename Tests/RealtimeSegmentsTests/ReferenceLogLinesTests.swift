import Foundation
@testable import RealtimeSegments
import XCTest

/// SPEC §8's lines where Exponea's SDK logs them (notes, "Every Segments: log message"): users'
/// grep-based troubleshooting looks for them at those moments.
final class ReferenceLogLinesTests: XCTestCase {
    /// L2: every `anonymize()`, not only one that found a check waiting.
    func testEveryAnonymizeSaysTheCheckWasCancelled() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.client.anonymize()
        fixture.settle()
        XCTAssertEqual(fixture.logs.count(SegmentsLogMessage.checkCancelledMeanwhile), 1, "\(fixture.logs.messages)")
    }

    /// L3 and L4: a start with no callback says both.
    func testAStartWithNoCallbackSaysBothSkippingLines() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.logs.count(SegmentsLogMessage.skippingInitialNoCallback), 1)
        XCTAssertEqual(fixture.logs.count(SegmentsLogMessage.skippingAfterTrackedEvent), 1, "\(fixture.logs.messages)")
    }

    /// L9: the callbacks went while the check's fetch was in flight.
    func testACheckWhoseCallbacksWentMeanwhileSaysSo() {
        let fixture = Fixture()
        let callback = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        fixture.client.segmentation.removeCallback(callbackData: callback)
        let before = fixture.logs.count(SegmentsLogMessage.skippingReloadNoCallback)
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.logs.count(SegmentsLogMessage.skippingReloadNoCallback), before + 1, "\(fixture.logs.messages)")
    }

    /// L8: neither the server nor the last known state holds a segment.
    func testACheckWithNoSegmentsAnywhereSaysSo() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        XCTAssertEqual(fixture.logs.count("Segments: Empty data from server and store."), 1, "\(fixture.logs.messages)")
    }
}
