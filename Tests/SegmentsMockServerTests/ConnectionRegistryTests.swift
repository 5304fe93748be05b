import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@testable import SegmentsMockServer
import XCTest

/// `stop()` shuts the event loops down only after the answers being worked out off them (GraphQL
/// queries run in a task) have been handed back: a promise left for a loop already shut down
/// traps in a debug build.
final class ConnectionRegistryTests: XCTestCase {
    func testClosingWaitsForAnswersStillBeingWorkedOut() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let registry = ConnectionRegistry()
        let promise = group.next().makePromise(of: Void.self)
        registry.track(promise.futureResult)
        let closed = ManagedFlag()
        let closing = Task {
            await registry.closeAll()
            closed.set()
        }
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertFalse(closed.isSet, "closeAll returned while an answer was still being worked out")
        promise.succeed(())
        await closing.value
        XCTAssertTrue(closed.isSet)
        try await group.shutdownGracefully()
    }
}

/// A flag set once, read from any thread.
private final class ManagedFlag: Sendable {
    private let box = NIOLockedValueBox(false)
    var isSet: Bool { box.withLockedValue { $0 } }
    func set() { box.withLockedValue { $0 = true } }
}
