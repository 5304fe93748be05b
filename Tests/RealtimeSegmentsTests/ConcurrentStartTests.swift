import Foundation
@testable import RealtimeSegments
import XCTest

/// Two `start()` calls at once: the one that finds the engine already being started returns only
/// once the client is started, so that what its caller does next finds the client running.
final class ConcurrentStartTests: XCTestCase {
    func testAStartThatLostTheRaceReturnsOnlyOnceTheClientIsStarted() throws {
        let gate = HeldHook()
        let starts = Locked(0)
        let secondCalled = DispatchSemaphore(value: 0)
        let fixture = Fixture {
            $0.startTookInitialForTesting = { gate.hold() }
            $0.startCalledForTesting = {
                if starts.withLock({ count in count += 1; return count }) == 2 { secondCalled.signal() }
            }
        }
        let client = fixture.client
        let firstReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.start()
            firstReturned.signal()
        }
        XCTAssertEqual(gate.waitUntilHeld(timeout: .now() + 10), .success, "the first start() took the initial state")
        let secondResult = Locked<Result<Void, SegmentsError>?>(nil)
        let secondReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.start()
            secondResult.withLock { $0 = Result { () throws(SegmentsError) in try client.trackEvent(eventType: "after start") } }
            secondReturned.signal()
        }
        // The second start() is under way while the first holds the initial state. Either way its
        // trackEvent below must succeed; the wait only gives a second start() that does not wait
        // (the failure) time to return while the first is still held, which it does within 1 s
        // unless the machine stalls that long.
        XCTAssertEqual(secondCalled.wait(timeout: .now() + 10), .success, "the second start() began")
        _ = secondReturned.wait(timeout: .now() + 1)
        gate.release()
        XCTAssertEqual(firstReturned.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(secondReturned.wait(timeout: .now() + 10), .success)
        let result = try XCTUnwrap(secondResult.withLock { $0 })
        if case .failure(let error) = result {
            XCTFail("trackEvent right after a start() that returned: \(error)")
        }
    }

    /// SPEC §3, triggers 1 and 2 where they meet: a callback registered while `start()` is under
    /// way (the initial state taken, the client not yet started, so the registration requests no
    /// check itself) is in the engine's first check, and its first load comes once.
    func testACallbackRegisteredWhileStartIsUnderWayGetsItsFirstLoadOnce() throws {
        let gate = HeldHook()
        let fixture = Fixture { $0.startTookInitialForTesting = { gate.hold() } }
        let client = fixture.client
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.start()
            started.signal()
        }
        XCTAssertEqual(gate.waitUntilHeld(timeout: .now() + 10), .success, "start() took the initial state")
        client.segmentation.addCallback(callbackData: fixture.recorder.callback(.discovery, firstLoad: true, tag: "racing"))
        gate.release()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        fixture.settle()
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Skipping initial segments update"), 0, "\(fixture.logs.messages)")
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 1, "the start's check, after the debounce")
        XCTAssertEqual(fixture.recorder.count, 1, "the first load, once")
        fixture.advance(.seconds(30))
        XCTAssertEqual(fixture.recorder.count, 1)
    }
}
