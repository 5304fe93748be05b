import Foundation
import Logging
import RealtimeSegments
import XCTest

/// App code that one engine thread runs (a log handler, a never-blocking transport's step) and
/// that calls into another client: it must not wait on that client's engine thread, which may be
/// waiting on it. In a group, any two clients on different threads can close such a cycle.
final class EngineThreadsCallingEachOtherTests: XCTestCase {
    func testTwoEngineThreadsTrackingIntoEachOthersFullRingsDoNotDeadlock() throws {
        let clients = Locked<[String: SegmentsClient]>([:])
        let entered = ["a": DispatchSemaphore(value: 0), "b": DispatchSemaphore(value: 0)]
        let done = ["a": DispatchSemaphore(value: 0), "b": DispatchSemaphore(value: 0)]
        func fixture(_ name: String, tracksInto other: String) -> Fixture {
            let once = Locked(true)
            return Fixture {
                $0.debounce = .zero
                $0.ingestCapacity = 2
                $0.logger = Logger(label: name) { _ in
                    CallingLogHandler { message in
                        guard message.hasPrefix("Segments: Fetching segments for customer"),
                              once.withLock({ first in defer { first = false }; return first }),
                              let target = clients.withLock({ $0[other] })
                        else { return }
                        // Both engine threads are here before either tracks: neither drains its ring.
                        entered[name]!.signal()
                        _ = entered[other]!.wait(timeout: .now() + 10)
                        for index in 0..<5 { try? target.trackEvent(eventType: "\(name)-\(index)") }
                        done[name]!.signal()
                    }
                }
            }
        }
        let a = fixture("a", tracksInto: "b")
        let b = fixture("b", tracksInto: "a")
        clients.withLock { $0 = ["a": a.client, "b": b.client] }
        for side in [a, b] {
            _ = side.register(.discovery, firstLoad: true, tag: "d")
            side.client.start()
        }
        XCTAssertEqual(done["a"]!.wait(timeout: .now() + 10), .success, "a's engine thread waited for b's, which waited for a's")
        XCTAssertEqual(done["b"]!.wait(timeout: .now() + 10), .success, "b's engine thread waited for a's, which waited for b's")
        a.settle()
        b.settle()
        XCTAssertEqual(b.transport.trackedEvents.map(\.eventType), (0..<5).map { "a-\($0)" }, "every event, in order")
        XCTAssertEqual(a.transport.trackedEvents.map(\.eventType), (0..<5).map { "b-\($0)" })
    }

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
