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

    /// L14: the client stops while a check's fetch is in flight. Exponea's Android SDK says it with
    /// the prefix (its iOS SDK without, against SPEC §8), once, and not for a stop with no fetch out.
    func testAStopWhileAFetchIsInFlightSaysTheFetchFailedBecauseTheSDKIsStopping() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        fixture.settle()
        fixture.holdTheNextCheck()
        fixture.client.stop()
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        XCTAssertEqual(fixture.logs.count("Segments: Segments fetch failed, SDK is stopping"), 1, "\(fixture.logs.messages)")
    }

    func testAStopWithNoFetchInFlightDoesNotSayAFetchFailed() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        fixture.client.stop()
        XCTAssertEqual(fixture.logs.count("Segments: Segments fetch failed, SDK is stopping"), 0, "\(fixture.logs.messages)")
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
