import Dispatch
import RealtimeSegmentsTesting
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// ``SegmentsConfiguration/checkTimeline``: the engine stamps a check's stages in the order the
/// check reaches them, the last before its first callback runs, and only what the check did.
final class CheckTimelineTests: XCTestCase {
    /// When each callback ran (`DispatchTime`, the timeline's clock).
    private final class CallTimes: Sendable {
        let times = Mutex<[UInt64]>([])
    }

    private let sale = Segment(id: "5f1d7a3b9c2e4d6f8a0b1c2d", segmentationId: "5f1d7a3b9c2e4d6f8a0b1c00")
    private let spring = Segment(id: "6a1d7a3b9c2e4d6f8a0b1c2e", segmentationId: "5f1d7a3b9c2e4d6f8a0b1c00")

    /// A started client serving `segments` (discovery) and stamping its checks in `timeline`, with
    /// one discovery callback (first load included) recording in `calls` when it runs; its first
    /// check done.
    private func startedClient(
        serving segments: [Segment], timeline: CheckTimeline, calls: CallTimes
    ) -> (client: SegmentsClient, transport: InMemorySegmentsTransport) {
        let transport = InMemorySegmentsTransport()
        transport.defaultResponse = SegmentsResponse(categories: [.discovery: segments])
        var configuration = SegmentsConfiguration(projectToken: "test-token", transport: transport)
        configuration.clock = ManualClock()
        configuration.debounce = .zero
        configuration.maxWait = .zero
        configuration.checkTimeline = timeline
        let client = SegmentsClient(configuration: configuration)
        client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { _ in
                calls.times.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) }
            })
        client.start()
        XCTAssertTrue(client.waitUntilIdle())
        return (client, transport)
    }

    func testAChangedCheckStampsEveryStageInOrderBeforeItsFirstCallback() throws {
        let timeline = CheckTimeline()
        let calls = CallTimes()
        let (client, transport) = startedClient(serving: [sale], timeline: timeline, calls: calls)
        defer { client.stop() }
        XCTAssertEqual(calls.times.withLock { $0.count }, 1, "the first load")

        transport.defaultResponse = SegmentsResponse(categories: [.discovery: [sale, spring]])
        timeline.reset()
        let before = DispatchTime.now().uptimeNanoseconds
        try client.trackEvent(eventType: "view_item")  // its upload requests a check
        XCTAssertTrue(client.waitUntilIdle())

        let callbackRan = try XCTUnwrap(calls.times.withLock { $0.count == 2 ? $0[1] : nil }, "the change was delivered")
        let stamps = try CheckTimeline.Stage.allCases.map { stage in
            try XCTUnwrap(timeline.stamp(of: stage), "\(stage) was not stamped")
        }
        XCTAssertEqual(stamps, stamps.sorted(), "stamped out of order: \(stamps)")
        XCTAssertLessThanOrEqual(before, stamps[0], "a stage was stamped before the check")
        XCTAssertLessThanOrEqual(stamps[3], callbackRan, "the delivery's start was stamped after its first callback ran")
    }

    func testACheckThatChangesNothingStampsOnlyThatItWasApplied() throws {
        let timeline = CheckTimeline()
        let calls = CallTimes()
        let (client, transport) = startedClient(serving: [sale], timeline: timeline, calls: calls)
        defer { client.stop() }

        timeline.reset()
        try client.trackEvent(eventType: "view_item")
        XCTAssertTrue(client.waitUntilIdle())

        XCTAssertEqual(transport.fetchCount, 2, "a second check ran")
        XCTAssertEqual(calls.times.withLock { $0.count }, 1, "nothing changed, nothing was delivered")
        XCTAssertNotNil(timeline.stamp(of: .applying))
        XCTAssertNil(timeline.stamp(of: .spelling))
        XCTAssertNil(timeline.stamp(of: .ready))
        XCTAssertNil(timeline.stamp(of: .deliveryStarted))
    }

    func testResetForgetsEveryStamp() {
        let timeline = CheckTimeline()
        for stage in CheckTimeline.Stage.allCases { timeline.mark(stage) }
        XCTAssertTrue(CheckTimeline.Stage.allCases.allSatisfy { timeline.stamp(of: $0) != nil })
        timeline.reset()
        XCTAssertTrue(CheckTimeline.Stage.allCases.allSatisfy { timeline.stamp(of: $0) == nil })
    }
}
