import Dispatch
import Foundation
@testable import RealtimeSegments
import XCTest

/// Issue 30, item 3: `identifyCustomer` and `anonymize` on two threads. Each publishes the new
/// identity, then queues it for the engine; the second call can publish second and queue first.
/// Events must still be stamped with the identity published last, the one `customerIds` shows.
final class IdentityOrderTests: XCTestCase {
    private enum Call { case identify, anonymize }

    /// Runs `first` on another thread and holds it between publishing and queueing while `second`
    /// runs here, then lets it finish; returns the fixture, with one event tracked afterwards.
    private func interleave(first: Call, second: Call) throws -> Fixture {
        let gate = HeldHook()
        let fixture = Fixture { $0.identityPublishedForTesting = { gate.hold() } }
        fixture.client.start()
        fixture.settle()
        let client = fixture.client
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Self.perform(first, on: client)
            finished.signal()
        }
        XCTAssertEqual(gate.waitUntilHeld(timeout: .now() + 10), .success)
        Self.perform(second, on: client)
        gate.release()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        try fixture.client.trackEvent(eventType: "after")
        fixture.settle()
        return fixture
    }

    private static func perform(_ call: Call, on client: SegmentsClient) {
        switch call {
        case .identify: try? client.identifyCustomer(customerIds: ["registered": "jane"])
        case .anonymize: client.anonymize()
        }
    }

    func testAnAnonymizeQueuedBeforeAnEarlierIdentifyStillStampsTheAnonymousCustomer() throws {
        let fixture = try interleave(first: .identify, second: .anonymize)
        XCTAssertNil(fixture.client.customerIds["registered"], "anonymize was published last")
        XCTAssertEqual(fixture.transport.trackedEvents.last?.customerIds, fixture.client.customerIds)
    }

    func testAnIdentifyQueuedBeforeAnEarlierAnonymizeStillStampsTheIdentifiedCustomer() throws {
        let fixture = try interleave(first: .anonymize, second: .identify)
        XCTAssertEqual(fixture.client.customerIds["registered"], "jane", "identify was published last")
        XCTAssertEqual(fixture.transport.trackedEvents.last?.customerIds, fixture.client.customerIds)
    }
}
