import Foundation
import Logging
import RealtimeSegments
import XCTest

/// App code that one engine thread runs (a log handler, a never-blocking transport's step) and
/// that stops another client: it must not wait for that client's engine thread, which may be
/// waiting on it. In a group, any two clients on different threads can close such a cycle.
final class EngineThreadsCallingEachOtherTests: XCTestCase {
    /// `stop()` of one client called on another's engine thread returns at once (the stopped
    /// engine's end may wait for that thread), and the engine still ends.
    func testAStopCalledOnAnotherClientsEngineThreadReturnsAtOnceAndTheEngineStillEnds() throws {
        let target = Locked<SegmentsClient?>(nil)
        let returned = DispatchSemaphore(value: 0)
        let once = Locked(true)
        let caller = Fixture {
            $0.debounce = .zero
            $0.logger = Logger(label: "caller") { _ in
                CallingLogHandler { message in
                    guard message.hasPrefix("Segments: Fetching segments for customer"),
                          once.withLock({ first in defer { first = false }; return first }),
                          let client = target.withLock({ $0 })
                    else { return }
                    client.stop(timeout: .seconds(30))
                    returned.signal()
                }
            }
        }
        let stopped = Fixture()
        stopped.client.start()
        target.withLock { $0 = stopped.client }
        _ = caller.register(.discovery, firstLoad: true, tag: "d")
        caller.client.start()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(stopped.logs.count(prefix: "Segments: stop() was called on another client's engine thread"), 1,
                       "\(stopped.logs.messages)")
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            stopped.client.stop(timeout: .seconds(30))
            ended.signal()
        }
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success)
        XCTAssertThrowsError(try stopped.client.trackEvent(eventType: "after"))
    }
}
