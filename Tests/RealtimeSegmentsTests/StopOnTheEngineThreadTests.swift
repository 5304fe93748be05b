import Foundation
import Logging
import RealtimeSegments
import XCTest

/// `stop(timeout:)` called by code the engine thread runs (here the log handler): it cannot wait
/// for that thread to end, so it returns at once, and the engine stops once the code returns.
final class StopOnTheEngineThreadTests: XCTestCase {
    func testAStopCalledOnTheEngineThreadReturnsAtOnceAndTheEngineStillEnds() throws {
        let client = Locked<SegmentsClient?>(nil)
        let lines = Locked<[String]>([])
        let stopped = Locked(false)
        let returned = DispatchSemaphore(value: 0)
        let fixture = Fixture {
            $0.debounce = .zero
            $0.logger = Logger(label: "engine-thread") { _ in
                CallingLogHandler { message in
                    lines.withLock { $0.append(message) }
                    guard message.hasPrefix("Segments: Fetching segments for customer"),
                        stopped.withLock({ stop in defer { stop = true }; return !stop }),
                        let client = client.withLock({ $0 })
                    else { return }
                    client.stop(timeout: .seconds(30))
                    returned.signal()
                }
            }
        }
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        client.withLock { $0 = fixture.client }
        fixture.client.start()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success,
                       "stop() on the engine thread waited for that thread to end (its timeout, 30 s)")
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            fixture.client.stop(timeout: .seconds(30))
            ended.signal()
        }
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the engine ended after the log handler returned")
        XCTAssertEqual(lines.withLock { $0 }.filter { $0.hasPrefix("Segments: stop() was called on the engine thread") }.count, 1)
        XCTAssertFalse(lines.withLock { $0 }.contains("Segments: stop() timed out waiting for the final upload"))
        XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "after"))
    }
}

/// `stop(timeout:)` called by code an upload runs (the transport, or a log handler it logs
/// through): the engine's end waits for that upload, so the call cannot wait for the engine. It
/// returns at once, and the engine stops once the upload returns, its events kept.
final class StopFromAnUploadTests: XCTestCase {
    func testAStopCalledFromAnUploadReturnsAtOnceAndTheEngineStillEnds() throws {
        let client = Locked<SegmentsClient?>(nil)
        let returned = DispatchSemaphore(value: 0)
        let armed = Locked(true)
        let transport = AdmittingTransport { _ in
            guard armed.withLock({ armed in defer { armed = false }; return armed }),
                let client = client.withLock({ $0 })
            else { return }
            client.stop(timeout: .seconds(30))
            returned.signal()
        }
        let fixture = Fixture(transport: transport.accepted) { $0.transport = transport }
        client.withLock { $0 = fixture.client }
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "e")
        fixture.client.flush()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success,
                       "stop() in an upload waited for the engine, which waits for that upload (its timeout, 30 s)")
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            fixture.client.stop(timeout: .seconds(30))
            ended.signal()
        }
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the engine ended after the upload returned")
        XCTAssertTrue(fixture.logs.contains("Segments: stop() was called from an upload; it returns at once, and the engine stops once the upload returns"))
        XCTAssertFalse(fixture.logs.contains("Segments: stop() timed out waiting for the final upload"))
        XCTAssertEqual(transport.accepted.trackedEvents.map(\.eventType), ["e"])
    }
}
