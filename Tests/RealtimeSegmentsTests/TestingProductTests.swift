import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// The example of RealtimeSegmentsTesting's documentation, as an app's test would write it: only
/// the public API of the two products.
final class TestingProductTests: XCTestCase {
    /// What the app's listener received (the client calls it on its delivery thread).
    private final class Received: Sendable {
        let lists = Mutex<[[Segment]]>([])
    }

    func testTheCheckRunsWhenTheDebounceWindowCloses() {
        let sale = Segment(id: "summer-sale", segmentationId: "campaigns")
        let clock = ManualClock()
        let transport = InMemorySegmentsTransport()
        transport.defaultResponse = SegmentsResponse(categories: [.discovery: [sale]])

        var configuration = SegmentsConfiguration(projectToken: "test-token", transport: transport)
        configuration.clock = clock
        configuration.debounce = .seconds(5)
        let client = SegmentsClient(configuration: configuration)
        defer { client.stop() }

        let received = Received()
        client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { segments in
                received.lists.withLock { $0.append(segments) }
            })
        client.start()
        XCTAssertTrue(client.waitUntilIdle())  // the window opens at the clock's start

        clock.advance(by: .seconds(4))
        XCTAssertTrue(client.waitUntilIdle())
        XCTAssertEqual(transport.fetchCount, 0, "the window is still open")

        clock.advance(by: .seconds(1))
        XCTAssertTrue(client.waitUntilIdle())
        XCTAssertEqual(transport.fetchCount, 1)
        XCTAssertEqual(received.lists.withLock { $0 }, [[sale]])
    }
}
