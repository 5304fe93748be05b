import XCTest

@testable import RealtimeSegments

/// When uploads go out: per flushing mode, after a failure's backoff, and at stop.
final class UploadScheduleTests: XCTestCase {
    private func at(_ seconds: Double) -> SegmentsInstant {
        SegmentsInstant(nanoseconds: UInt64(seconds * 1e9))
    }

    private func queue(events: Int) -> UploadQueue {
        UploadQueue((0..<events).map { index in
            .event(TrackedEvent(customerIds: ["cookie": "c"], eventType: "e\(index)", timestamp: 0, properties: [:]))
        })
    }

    func testImmediateModeSendsAsSoonAsSomethingWaits() {
        var schedule = UploadSchedule(flushingMode: .immediate)
        schedule.start(at: at(0))
        XCTAssertFalse(schedule.mayStart(at: at(0), queue: queue(events: 0), drainedThrough: 0, stopping: false))
        XCTAssertTrue(schedule.mayStart(at: at(0), queue: queue(events: 1), drainedThrough: 0, stopping: false))
    }

    func testOneUploadIsInFlightAtATime() {
        var schedule = UploadSchedule(flushingMode: .immediate)
        var uploads = queue(events: 2)
        _ = uploads.next(maxBatchSize: 1)
        XCTAssertFalse(schedule.mayStart(at: at(0), queue: uploads, drainedThrough: 0, stopping: false))
    }

    func testManualModeWaitsForAFlushThatLastsUntilTheQueueEmpties() {
        var schedule = UploadSchedule(flushingMode: .manual)
        XCTAssertFalse(schedule.mayStart(at: at(0), queue: queue(events: 1), drainedThrough: 0, stopping: false))
        schedule.requestFlush(through: 0)
        XCTAssertTrue(schedule.mayStart(at: at(0), queue: queue(events: 1), drainedThrough: 0, stopping: false))
        XCTAssertTrue(schedule.mayStart(at: at(1), queue: queue(events: 1), drainedThrough: 0, stopping: false))
        XCTAssertFalse(schedule.mayStart(at: at(2), queue: queue(events: 0), drainedThrough: 0, stopping: false))
        XCTAssertFalse(schedule.mayStart(at: at(3), queue: queue(events: 1), drainedThrough: 0, stopping: false))
    }

    func testAFlushLastsUntilTheRingIsDrainedThroughWhatWasClaimedBeforeIt() {
        var schedule = UploadSchedule(flushingMode: .manual)
        schedule.requestFlush(through: 5)
        XCTAssertFalse(schedule.mayStart(at: at(0), queue: queue(events: 0), drainedThrough: 4, stopping: false))
        XCTAssertTrue(schedule.mayStart(at: at(0), queue: queue(events: 1), drainedThrough: 5, stopping: false),
                      "the item still in the ring when the queue was empty goes out once drained")
        XCTAssertFalse(schedule.mayStart(at: at(1), queue: queue(events: 0), drainedThrough: 5, stopping: false))
        XCTAssertFalse(schedule.mayStart(at: at(2), queue: queue(events: 1), drainedThrough: 6, stopping: false),
                       "an item claimed after the flush waits for the next one")
    }

    func testPeriodicModeFlushesAtEachInterval() {
        var schedule = UploadSchedule(flushingMode: .periodic(.seconds(10)))
        schedule.start(at: at(0))
        XCTAssertEqual(schedule.deadline(queueWaits: true), at(10))
        XCTAssertFalse(schedule.mayStart(at: at(9.999), queue: queue(events: 1), drainedThrough: 0, stopping: false))
        XCTAssertTrue(schedule.mayStart(at: at(10), queue: queue(events: 1), drainedThrough: 0, stopping: false))
        XCTAssertEqual(schedule.deadline(queueWaits: true), at(20))
    }

    func testAFailedUploadWaitsForItsRetryTime() {
        var schedule = UploadSchedule(flushingMode: .immediate)
        schedule.retry(at: at(5))
        XCTAssertEqual(schedule.deadline(queueWaits: true), at(5))
        XCTAssertNil(schedule.deadline(queueWaits: false), "no retry while nothing waits")
        XCTAssertFalse(schedule.mayStart(at: at(4.999), queue: queue(events: 1), drainedThrough: 0, stopping: false))
        XCTAssertTrue(schedule.mayStart(at: at(5), queue: queue(events: 1), drainedThrough: 0, stopping: false))
    }

    func testAnAnswerEndsTheWaitForARetry() {
        var schedule = UploadSchedule(flushingMode: .immediate)
        schedule.retry(at: at(5))
        schedule.uploadsAnswered()
        XCTAssertTrue(schedule.mayStart(at: at(1), queue: queue(events: 1), drainedThrough: 0, stopping: false))
    }

    func testAtStopUploadsGoAtOnceUntilAnAttemptFails() {
        var schedule = UploadSchedule(flushingMode: .periodic(.seconds(10)))
        schedule.start(at: at(0))
        schedule.retry(at: at(60))
        schedule.stop()
        XCTAssertNil(schedule.deadline(queueWaits: false))
        XCTAssertTrue(schedule.mayStart(at: at(1), queue: queue(events: 1), drainedThrough: 0, stopping: true))
        schedule.markFinalAttemptFailed()
        XCTAssertFalse(schedule.mayStart(at: at(2), queue: queue(events: 1), drainedThrough: 0, stopping: true))
    }
}
