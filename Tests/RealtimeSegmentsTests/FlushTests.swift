import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// `flush()` uploads every event tracked before it, whatever the flushing mode.
final class FlushTests: XCTestCase {
    /// The engine drains the ring at the start of a turn and takes its messages after: a flush
    /// posted after `trackEvent` returned can reach the engine in the same turn as the event's
    /// drain has just missed. The request must last until that event has been queued and sent.
    func testAFlushRightAfterATrackedEventUploadsItEvenBeforeTheEngineDrainedIt() throws {
        let fixture = Fixture { $0.flushingMode = .manual }
        _ = fixture.register(.discovery)
        let client = fixture.client
        let first = Locked(true)
        // Runs in the fetch's step on the engine thread: after the turn's drain of the ring,
        // before its next pass over the inbox, where an app thread's calls may land too.
        fixture.transport.setResponder { _ in
            if first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) {
                try? client.trackEvent(eventType: "late")
                client.flush()
            }
            return SegmentsResponse()
        }
        fixture.startAndRunInitialCheck()
        fixture.transport.setResponder(nil)
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["late"],
                       "flush() called after trackEvent returned left the event queued")
    }
}
