import Foundation
import Logging
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// The blocking qualified fetch called on the thread that runs every qualified request (from a
/// log handler there): waiting would hang that thread, and with it every qualified fetch of the
/// process. It fails at once with a typed error instead.
final class QualifiedReentryTests: XCTestCase {
    func testABlockingFetchFromALogHandlerOnTheQualifiedThreadFailsInsteadOfHanging() throws {
        let transport = InMemorySegmentsTransport()
        transport.defaultQualifiedSegments = ["a"]
        let client = Locked<SegmentsClient?>(nil)
        let armed = Locked(true)
        let nested = Locked<Result<Void, SegmentsError>?>(nil)
        let nestedReturned = DispatchSemaphore(value: 0)
        var configuration = SegmentsConfiguration(projectToken: "token", transport: transport)
        configuration.clock = ManualClock()
        configuration.qualifiedSegments = QualifiedSegmentsConfiguration(apiKey: "odp-key", segmentsToCheck: ["a", "b"])
        configuration.logger = Logger(label: "qualified-reentry") { _ in
            CallingLogHandler { message in
                guard message.hasPrefix("Segments: Fetched qualified segments of"),
                    armed.withLock({ armed in defer { armed = false }; return armed }),
                    let client = client.withLock({ $0 }), let other = try? client.createUserContext(userId: "other")
                else { return }
                nested.withLock { $0 = Result { () throws(SegmentsError) in try other.fetchQualifiedSegmentsAndWait() } }
                nestedReturned.signal()
            }
        }
        client.withLock { $0 = SegmentsClient(configuration: configuration) }
        let user = try XCTUnwrap(client.withLock { $0 }).createUserContext(userId: "first")
        let first = Locked<SegmentsError??>(nil)
        user.fetchQualifiedSegments { error in first.withLock { $0 = error } }
        XCTAssertEqual(nestedReturned.wait(timeout: .now() + 10), .success, "the blocking fetch in the log handler hung the qualified thread")
        guard case .failure(.fetchSegmentsFailed(let reason)) = nested.withLock({ $0 }) else {
            return XCTFail("got \(String(describing: nested.withLock { $0 }))")
        }
        XCTAssertTrue(reason.contains("qualified segments thread"), reason)
        // The thread is free: another fetch still completes.
        let after = try XCTUnwrap(client.withLock { $0 }).createUserContext(userId: "third")
        let done = expectation(description: "a later fetch completes")
        after.fetchQualifiedSegments { error in
            XCTAssertNil(error)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        client.withLock { $0?.stop(); $0 = nil }
    }
}
