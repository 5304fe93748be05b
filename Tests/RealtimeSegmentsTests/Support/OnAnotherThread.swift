import Foundation
import RealtimeSegments
import XCTest

/// `body`'s result, computed on a thread of its own (`DispatchQueue.sync` would run it on the
/// caller's); returns once it has. `nil`, and a test failure, if it takes more than 10 s.
@discardableResult
func onAnotherThread<Result: Sendable>(
    file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () -> Result
) -> Result? {
    let result = Locked<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }
    XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the other thread did not return", file: file, line: line)
    return result.withLock { $0 }
}
