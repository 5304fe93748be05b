import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// `stop()` blocks its thread until the engine has ended, final upload included. Called from async
/// code on every thread of Swift's cooperative pool (clients torn down together in a task group),
/// it must still find a thread for that upload.
final class StopFromAsyncCodeTests: XCTestCase {
    /// `stop()` is synchronous and blocks its thread until the engine ended; the engine's final
    /// upload runs as a `Task {}` on Swift's cooperative pool. Called from async code on every pool
    /// thread (several clients torn down concurrently in a task group, as app or server teardown
    /// does), no pool thread is left for the uploads each stop waits for: every stop runs into its
    /// timeout and returns with its events not uploaded.
    func testStopCalledFromEveryCooperativePoolThreadStillMakesTheFinalUpload() {
        let clients = 4 * ProcessInfo.processInfo.activeProcessorCount
        var fixtures: [Fixture] = []
        for _ in 0..<clients {
            let fixture = Fixture { $0.flushingMode = .manual }
            fixture.client.start()
            fixture.settle()
            try? fixture.client.trackEvent(eventType: "view_item")
            fixture.settle()
            fixtures.append(fixture)
        }
        XCTAssertTrue(fixtures.allSatisfy { $0.transport.trackedEvents.isEmpty }, "manual flushing: nothing sent yet")
        let uploadedWhenStopReturned = Locked<[Int]>([])
        let took = Locked<[Duration]>([])
        let done = (0..<clients).map { expectation(description: "stop \($0)") }
        for (index, fixture) in fixtures.enumerated() {
            let client = fixture.client
            let transport = fixture.transport
            let finished = done[index]
            Task.detached {
                let start = ContinuousClock.now
                client.stop(timeout: .seconds(5))
                took.withLock { $0.append(ContinuousClock.now - start) }
                uploadedWhenStopReturned.withLock { $0.append(transport.trackedEvents.count) }
                finished.fulfill()
            }
        }
        wait(for: done, timeout: 120)
        let timedOut = fixtures.filter { $0.logs.contains("Segments: stop() timed out waiting for the final upload") }.count
        print("StopFromAsyncCodeTests: \(clients) stops; uploaded when stop returned: \(uploadedWhenStopReturned.withLock { $0 }); took: \(took.withLock { $0 }); timed out: \(timedOut)")
        XCTAssertEqual(timedOut, 0, "stops that timed out waiting for the final upload")
        XCTAssertEqual(uploadedWhenStopReturned.withLock { $0 }.filter { $0 == 0 }.count, 0, "stops that returned before their final upload was made")
    }

    /// The same with an upload in flight (held by the transport) when `stop()` is called from every
    /// pool thread: released once every client has begun stopping, the upload's next step needs a
    /// pool thread, and none is free until the stops time out.
    func testAnUploadInFlightWhenStopIsCalledFromEveryPoolThreadCompletes() {
        let clients = ProcessInfo.processInfo.activeProcessorCount
        var fixtures: [Fixture] = []
        for _ in 0..<clients {
            let fixture = Fixture()
            fixture.client.start()
            fixture.settle()
            fixture.transport.holdUploads()
            try? fixture.client.trackEvent(eventType: "view_item")
            waitUntil { fixture.transport.heldUploadCount == 1 }
            fixtures.append(fixture)
        }
        let uploadedWhenStopReturned = Locked<[Int]>([])
        let done = (0..<clients).map { expectation(description: "stop \($0)") }
        for (index, fixture) in fixtures.enumerated() {
            let client = fixture.client
            let transport = fixture.transport
            let finished = done[index]
            Task.detached {
                client.stop(timeout: .seconds(5))
                uploadedWhenStopReturned.withLock { $0.append(transport.trackedEvents.count) }
                finished.fulfill()
            }
        }
        // Every client has begun stopping (trackEvent is refused) before its upload is released.
        for fixture in fixtures {
            waitUntil { (try? fixture.client.trackEvent(eventType: "probe")) == nil }
            fixture.transport.releaseHeldUploads()
        }
        wait(for: done, timeout: 60)
        let timedOut = fixtures.filter { $0.logs.contains("Segments: stop() timed out waiting for the final upload") }.count
        print("StopFromAsyncCodeTests, in flight: uploaded when stop returned: \(uploadedWhenStopReturned.withLock { $0 }); timed out: \(timedOut)")
        XCTAssertEqual(timedOut, 0, "stops that timed out waiting for the upload in flight")
    }

    /// The same with a fetch in flight, of a transport that does not declare `neverBlocks` (the
    /// default for a transport an app writes), whose calls therefore run off the engine thread.
    func testAFetchInFlightOfATransportThatMayBlockDoesNotHoldUpStopsFromEveryPoolThread() {
        let clients = ProcessInfo.processInfo.activeProcessorCount
        var fixtures: [Fixture] = []
        var inners: [InMemorySegmentsTransport] = []
        for _ in 0..<clients {
            let inner = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
            inner.defaultResponse = response([.discovery: [1]])
            let fixture = Fixture { $0.transport = MayBlockTransport(inner) }
            _ = fixture.register(.discovery, tag: "d")
            inner.holdFetches()
            fixture.client.start()
            fixture.settle()
            fixture.clock.advance(by: .seconds(5))
            waitUntil { inner.heldFetchCount == 1 }
            fixtures.append(fixture)
            inners.append(inner)
        }
        let done = (0..<clients).map { expectation(description: "stop \($0)") }
        for (index, fixture) in fixtures.enumerated() {
            let client = fixture.client
            let finished = done[index]
            Task.detached {
                client.stop(timeout: .seconds(5))
                finished.fulfill()
            }
        }
        for (fixture, inner) in zip(fixtures, inners) {
            waitUntil { (try? fixture.client.trackEvent(eventType: "probe")) == nil }
            inner.releaseHeldFetches()
        }
        wait(for: done, timeout: 60)
        let timedOut = fixtures.filter { $0.logs.contains("Segments: stop() timed out waiting for the final upload") }.count
        XCTAssertEqual(timedOut, 0, "stops that timed out waiting for the fetch in flight")
    }
}
