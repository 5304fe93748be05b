import Dispatch
import Foundation
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting

/// Messages that reach the inbox when no engine will handle them anymore are answered, not lost.
final class EngineChannelsTests: XCTestCase {
    func testAMessagePostedAfterTheEngineEndedIsRefused() {
        let channels = EngineChannels(ringCapacity: 16)
        channels.closeInbox()
        let answered = expectation(description: "getSegments answered")
        channels.post(.getSegments(category: .discovery, force: false, completion: { result in
            XCTAssertEqual(result, .failure(.stopped))
            XCTAssertFalse(Thread.isMainThread, "answered on a background thread, never the caller's (the test's main thread)")
            answered.fulfill()
        }))
        let barrier = DispatchSemaphore(value: 0)
        channels.post(.barrier(barrier, through: 0))
        XCTAssertEqual(barrier.wait(timeout: .now() + 10), .success, "a barrier is signalled")
        wait(for: [answered], timeout: 10)
        waitUntil { !channels.hasOutstandingWork }
    }

    /// The message a `getSegments` posts when `stop()` ran to the end between its "started" check
    /// and its post (`StressTests.testGetSegmentsRacingStopAlwaysEnds` races for that window).
    func testTheEngineClosesItsInboxAsItEnds() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        let answered = expectation(description: "getSegments answered")
        fixture.client.channels.post(.getSegments(category: .discovery, force: true, completion: { result in
            XCTAssertEqual(result, .failure(.stopped))
            answered.fulfill()
        }))
        wait(for: [answered], timeout: 10)
    }

    /// "Never a dropped event" without a word: an event a call put in the ring after the engine's
    /// last look (the call passed its "started" check before `stop()`) is taken out again by the
    /// call itself and reported, not left in a ring nobody reads.
    func testAnEventPublishedAfterTheEngineEndedIsTakenOutWithALogLine() {
        let channels = EngineChannels(ringCapacity: 8)
        let logs = LogCapture()
        channels.closeRing(logger: logs.makeLogger())
        XCTAssertEqual(logs.messages, [], "nothing was left")
        channels.ingestEvent(eventType: "late", properties: ["sku": "A-1"], timestamp: 1)
        XCTAssertTrue(channels.ring.isEmpty)
        XCTAssertEqual(logs.messages, ["Segments: 1 events or customer changes tracked while stop() ran were dropped"])
    }

    /// A call that claimed its slot before the engine ended but had not published it yet is waited
    /// for: its event is taken out and reported with the rest.
    func testTheEndWaitsForACallThatClaimedBeforeItToPublish() {
        let channels = EngineChannels(ringCapacity: 8)
        let logs = LogCapture()
        channels.ingestEvent(eventType: "left", properties: [:], timestamp: 1)
        let (claimed, isFree) = channels.ring.claimWithoutWaiting()
        XCTAssertTrue(isFree)
        let closed = DispatchSemaphore(value: 0)
        let logger = logs.makeLogger()
        Thread.detachNewThread {
            channels.closeRing(logger: logger)
            closed.signal()
        }
        // The closer has taken the published item ahead of the claim, so it is past its snapshot of
        // the claims and can only be waiting for this one.
        waitUntil { channels.ring.nextDequeuePosition == 1 }
        XCTAssertEqual(closed.wait(timeout: .now() + .milliseconds(100)), .timedOut, "waits for the claimed slot")
        IngestItem.initializeEvent(at: claimed.element, eventType: "claimed before the end", properties: [:], timestamp: 1)
        channels.ring.publish(claimed)
        XCTAssertEqual(closed.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(channels.ring.isEmpty)
        XCTAssertEqual(logs.messages, ["Segments: 2 events or customer changes tracked while stop() ran were dropped"])
    }

    /// A nudge (a control message, a stalled producer) that found the engine running, and whose
    /// wake-up lands after the engine ended, must leave the end's mark in place: a call that
    /// publishes after it still takes its event out and reports it.
    func testANudgeRacingTheEngineEndStillLeavesLateEventsToTheirCalls() {
        let logs = LogCapture()
        let logger = logs.makeLogger()
        let raced = Atomic<Bool>(false)
        let channels = EngineChannels(ringCapacity: 8) { channels in
            // The engine ends between the nudge's look at `ended` and its wake-up.
            guard !raced.exchange(true, ordering: .relaxed) else { return }
            channels.closeRing(logger: logger)
        }
        channels.post(.flush(through: 0))
        XCTAssertTrue(raced.load(ordering: .relaxed), "the nudge ran into the engine's end")
        channels.ingestEvent(eventType: "late", properties: [:], timestamp: 1)
        XCTAssertTrue(channels.ring.isEmpty, "the late event is not left in a ring nobody reads")
        XCTAssertEqual(logs.messages, ["Segments: 1 events or customer changes tracked while stop() ran were dropped"])
    }

    func testWaitingForIdleAfterAStopWithoutStartEndsAtOnce() {
        let fixture = Fixture()
        fixture.client.stop()
        XCTAssertTrue(fixture.client.waitUntilIdle(timeout: .seconds(10)), "the barrier was answered")
    }

    func testWaitingForIdleAfterStopIgnoresWhatNoEngineWillTake() {
        let fixture = Fixture()
        fixture.client.start()
        fixture.client.stop()
        // What a `trackEvent` racing `stop()` leaves behind.
        fixture.client.channels.ingest(.anonymize(IdentitySnapshot(customerIds: ["cookie": "late"], generation: 9)))
        XCTAssertTrue(fixture.client.waitUntilIdle(timeout: .seconds(10)))
    }

    func testMessagesStillInTheInboxWhenTheEngineEndsAreRefused() {
        let channels = EngineChannels(ringCapacity: 16)
        let answered = expectation(description: "getSegments answered")
        channels.post(.getSegments(category: .discovery, force: true, completion: { result in
            XCTAssertEqual(result, .failure(.stopped))
            answered.fulfill()
        }))
        channels.post(.flush(through: 0))
        channels.closeInbox()
        wait(for: [answered], timeout: 10)
        waitUntil { !channels.hasOutstandingWork }
        var taken: [ControlMessage] = []
        channels.takeMessages(into: &taken)
        XCTAssertTrue(taken.isEmpty, "nothing is left for an engine")
    }
}
