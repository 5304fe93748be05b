import Foundation
import RealtimeSegments
import XCTest

/// A stopped client never calls a callback again, so it holds none: a callback that captures the
/// client (or a screen that owns it) does not keep either alive after `stop()`.
final class StopReleasesCallbacksTests: XCTestCase {
    private final class Screen: Sendable {}

    func testStopLetsGoOfTheCallbacksItHeld() {
        let fixture = Fixture()
        weak var weakScreen: Screen?
        do {
            let screen = Screen()
            weakScreen = screen
            fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in
                _ = screen
            })
        }
        fixture.client.start()
        fixture.settle()
        XCTAssertNotNil(weakScreen, "held while the client runs")
        fixture.client.stop()
        XCTAssertNil(weakScreen, "the stopped client still holds a callback it will never call")
    }

    func testACallbackAddedAfterStopIsNotHeld() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        weak var weakScreen: Screen?
        do {
            let screen = Screen()
            weakScreen = screen
            fixture.client.segmentation.addCallbacks([SegmentCallbackData(category: .content, isIncludeFirstLoad: false) { _ in
                _ = screen
            }])
        }
        XCTAssertNil(weakScreen, "a callback added to a stopped client is held")
        XCTAssertTrue(fixture.logs.contains("Segments: Callback registered on a stopped client; it will never be called"))
    }

    /// The cycle an app makes without meaning to: a callback that uses the client.
    func testAClientWhoseCallbackUsesItIsFreedAfterStop() {
        weak var weakClient: SegmentsClient?
        do {
            let fixture = Fixture()
            let client = fixture.client
            weakClient = client
            client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in
                _ = client.customerIds
            })
            client.start()
            client.stop()
        }
        XCTAssertNil(weakClient, "the client is kept alive by its own callback after stop()")
    }
}
