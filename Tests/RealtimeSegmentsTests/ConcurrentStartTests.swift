import Foundation
@testable import RealtimeSegments
import XCTest

/// Two `start()` calls at once: the one that finds the engine already being started returns only
/// once the client is started, so that what its caller does next finds the client running.
final class ConcurrentStartTests: XCTestCase {
    func testAStartThatLostTheRaceReturnsOnlyOnceTheClientIsStarted() throws {
        let held = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let holdNext = Locked(true)
        let fixture = Fixture {
            $0.startTookInitialForTesting = {
                guard holdNext.withLock({ hold in defer { hold = false }; return hold }) else { return }
                held.signal()
                proceed.wait()
            }
        }
        let client = fixture.client
        let firstReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.start()
            firstReturned.signal()
        }
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success, "the first start() took the initial state")
        let secondResult = Locked<Result<Void, SegmentsError>?>(nil)
        let secondReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.start()
            secondResult.withLock { $0 = Result { () throws(SegmentsError) in try client.trackEvent(eventType: "after start") } }
            secondReturned.signal()
        }
        // Not a timing assertion: however long this waits, the second start() must not return
        // before the first one made the client started.
        _ = secondReturned.wait(timeout: .now() + .milliseconds(200))
        proceed.signal()
        XCTAssertEqual(firstReturned.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(secondReturned.wait(timeout: .now() + 10), .success)
        let result = try XCTUnwrap(secondResult.withLock { $0 })
        if case .failure(let error) = result {
            XCTFail("trackEvent right after a start() that returned: \(error)")
        }
    }
}
