import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// The test doubles apps use keep their documented contracts with the inputs an app's test may
/// give them: a responder that looks at its transport, durations below zero, counts below one.
final class TestDoublesTests: XCTestCase {
    private let context = SegmentsRequestContext(projectToken: "p", authorization: .token("k"))

    /// The responder is the app's code: it runs outside the transport's lock, so it may read or
    /// script the transport (the fetch would otherwise wait on that lock for good).
    func testAResponderMayUseItsTransport() {
        let transport = InMemorySegmentsTransport()
        let sale = SegmentsResponse(categories: [.discovery: [Segment(id: "sale", segmentationId: "s")]])
        transport.setResponder { _ in
            transport.fetchCount > 1 ? sale : transport.defaultResponse
        }
        let answered = DispatchSemaphore(value: 0)
        let context = context
        Task {
            _ = try? await transport.fetchSegments(cookie: "c", context: context)
            _ = try? await transport.fetchSegments(cookie: "c", context: context)
            answered.signal()
        }
        XCTAssertEqual(answered.wait(timeout: .now() + 30), .success, "a responder that read its transport never returned")
    }

    func testAFailureCountBelowOneScriptsNoFailure() async throws {
        let transport = InMemorySegmentsTransport()
        transport.failNext(.fetchSegments, with: .timeout, count: -1)
        transport.failNext(.fetchSegments, with: .timeout, count: 0)
        _ = try await transport.fetchSegments(cookie: "c", context: context)
    }

    func testTheClocksNeverGoBack() {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        clock.advanceWhileAsleep(by: .seconds(10))
        let (now, continuous, wall) = (clock.now(), clock.continuousNow(), clock.wallClockSeconds())
        clock.advance(by: .seconds(-5))
        clock.advanceWhileAsleep(by: .seconds(-20))
        XCTAssertEqual(clock.now(), now)
        XCTAssertEqual(clock.continuousNow(), continuous)
        XCTAssertEqual(clock.wallClockSeconds(), wall)
        clock.advanceWhileAsleep(by: .seconds(10))
        XCTAssertEqual(clock.continuousNow(), continuous + .seconds(10), "a later sleep counts in full")
    }
}
