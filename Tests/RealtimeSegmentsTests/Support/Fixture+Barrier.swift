import Dispatch
@_spi(Benchmarks) @testable import RealtimeSegments
import XCTest

extension Fixture {
    /// Returns once the engine has handled everything posted before this call and evaluated its
    /// timers at the clock's current time. Unlike `settle()`, it does not wait for a fetch in
    /// flight (a held one never completes), so a test can see what the engine did meanwhile.
    func passBarrier(file: StaticString = #filePath, line: UInt = #line) {
        let barrier = DispatchSemaphore(value: 0)
        client.channels.post(.barrier(barrier, through: client.channels.ring.claimedPositions))
        XCTAssertEqual(barrier.wait(timeout: .now() + 10), .success, "the engine did not reach the barrier", file: file, line: line)
    }
}
