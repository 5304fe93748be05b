import Dispatch
import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// A transport that keeps the default `neverBlocks` (`false`) may block its thread in a call, as a
/// synchronous HTTP client does. Its fetches and links must not hold Swift's cooperative pool: with
/// one blocked fetch per pool thread, none of the app's own tasks would run until a fetch returned.
final class BlockingTransportCallTests: XCTestCase {
    func testFetchesThatBlockTheirThreadsLeaveTheCooperativePoolToTheApp() {
        let clients = ProcessInfo.processInfo.activeProcessorCount
        var fixtures: [Fixture] = []
        var transports: [MayBlockTransport] = []
        for index in 0..<clients {
            let transport = MayBlockTransport(blockingFetches: true)
            transport.inner.defaultResponse = response([.discovery: [1]])
            let fixture = Fixture { $0.transport = transport }
            _ = fixture.register(.discovery, tag: "d")
            fixture.client.start()
            fixture.settle()
            fixture.clock.advance(by: .seconds(5))
            XCTAssertEqual(transport.fetchEntered.wait(timeout: .now() + 30), .success, "client \(index)'s fetch began")
            fixtures.append(fixture)
            transports.append(transport)
        }
        // Every fetch now blocks a thread; an app task must still get one of the pool's.
        let appTaskRan = expectation(description: "an app task ran while every fetch blocked its thread")
        Task.detached { appTaskRan.fulfill() }
        wait(for: [appTaskRan], timeout: 10)
        for transport in transports { transport.release.signal() }
        for fixture in fixtures {
            waitUntil { fixture.recorder.count(tag: "d") == 1 }
        }
        XCTAssertTrue(fixtures.allSatisfy { $0.recorder.segments(tag: "d") == [[segment(1)]] }, "every blocked fetch still delivered its data")
    }
}
