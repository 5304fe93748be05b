import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// A transport that may block (the default `neverBlocks`) and blocks: its calls run off Swift's
/// cooperative pool, so the app's own tasks still run while every such call is blocked.
final class BlockingTransportCallTests: XCTestCase {
    func testFetchesThatBlockLeaveTheCooperativePoolToTheApp() {
        let clients = ProcessInfo.processInfo.activeProcessorCount
        let transport = MayBlockTransport(blockingFetches: true)
        transport.inner.defaultResponse = response([.discovery: [1]])
        var fixtures: [Fixture] = []
        for _ in 0..<clients {
            let fixture = Fixture { $0.transport = transport }
            _ = fixture.register(.discovery, tag: "d")
            fixture.client.start()
            fixture.settle()
            fixture.clock.advance(by: .seconds(5))
            fixtures.append(fixture)
        }
        for _ in 0..<clients {
            XCTAssertEqual(transport.fetchEntered.wait(timeout: .now() + 10), .success, "a fetch started and blocked")
        }
        let appTask = expectation(description: "a task of the app's own")
        Task.detached { appTask.fulfill() }
        let result = XCTWaiter.wait(for: [appTask], timeout: 5)
        for _ in 0..<clients { transport.release.signal() }
        XCTAssertEqual(result, .completed, "the app's task waited for a pool thread the blocked fetches held")
        for fixture in fixtures { fixture.client.stop() }
    }
}
