import Dispatch
import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// SPEC §5–6: `stop()` raises the customer generation, but it is not a customer change. A pull
/// whose answer the engine takes between that raise and the stop itself is not repeated for a
/// "new customer" nor failed as `customerChanged`: it fails with `stopped`, and no fetch follows.
final class PullStopTests: XCTestCase {
    func testAPullAnsweredWhileStopBeginsFailsWithStoppedAndFetchesNoMore() {
        for refetches in [0, 3] {
            let entered = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            let fixture = Fixture {
                $0.maxPullRefetches = refetches
                $0.stopGenerationRaisedForTesting = {
                    entered.signal()
                    gate.wait()
                }
            }
            fixture.client.start()
            fixture.settle()
            fixture.transport.holdFetches()
            let outcome = Locked<Result<[Segment], SegmentsError>?>(nil)
            fixture.client.getSegments(category: .discovery, force: true) { result in outcome.withLock { $0 = result } }
            waitUntil { fixture.transport.heldFetchCount == 1 }
            let stopped = fixture.stopOnAnotherThread()
            XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "stop() raised the generation")
            // The answer reaches the engine now, under the raised generation, before the stop.
            fixture.transport.releaseHeldFetches(keepHolding: true)
            waitUntil { outcome.withLock { $0 } != nil || fixture.transport.heldFetchCount > 0 }
            XCTAssertEqual(fixture.transport.heldFetchCount, 0, "no fetch after stop() began (refetches \(refetches))")
            gate.signal()
            XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
            waitUntil { outcome.withLock { $0 } != nil }
            XCTAssertEqual(outcome.withLock { $0 }.map { "\($0)" }, "\(Result<[Segment], SegmentsError>.failure(.stopped))",
                           "refetches \(refetches)")
            XCTAssertEqual(fixture.transport.fetchCount, 1, "the pull's fetch and nothing after it (refetches \(refetches))")
            fixture.transport.releaseHeldFetches()
        }
    }
}

/// SPEC: `stop()` cancels pending checks, and no callback is invoked for data fetched after it
/// began: a debounced check due between the generation's raise and the stop itself is not started,
/// and a check answered then is not delivered.
final class CheckStopTests: XCTestCase {
    /// A started client with a discovery listener whose `stop()` is held once it raised the
    /// generation: `begin(fixture)` runs before the stop, `during(fixture)` while it is held.
    private func whileStopIsHeld(begin: (Fixture) -> Void = { _ in }, during: (Fixture) -> Void) {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let fixture = Fixture {
            $0.stopGenerationRaisedForTesting = {
                entered.signal()
                gate.wait()
            }
        }
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.discovery, firstLoad: true))
        fixture.client.start()
        fixture.settle()  // the start's check is debouncing
        begin(fixture)
        let stopped = fixture.stopOnAnotherThread()
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "stop() raised the generation")
        during(fixture)
        gate.signal()
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
    }

    func testACheckDueWhileStopBeginsIsNotStartedNorDelivered() {
        whileStopIsHeld { fixture in
            fixture.advance(.seconds(5))  // the debounce ends before the engine takes the stop
            XCTAssertEqual(fixture.transport.fetchCount, 0, "a check started after stop() began")
            XCTAssertEqual(fixture.recorder.count, 0, "a callback after stop() began")
        }
    }

    func testACheckAnsweredWhileStopBeginsIsNotDelivered() {
        whileStopIsHeld(begin: { $0.holdTheNextCheck() }) { fixture in
            fixture.transport.releaseHeldFetches()
            fixture.settle()
            XCTAssertEqual(fixture.recorder.count, 0, "a callback after stop() began")
        }
    }
}
