import NIOConcurrencyHelpers
import RealtimeSegments
import SegmentsMockServer
import XCTest

/// Segments used across the tests.
enum Fixtures {
    static let viewer = Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4")
    static let buyer = Segment(id: "66140257f4cb337324209872", segmentationId: "66140215fb50effc8a7218b5")
    static let reader = Segment(id: "66140257f4cb337324209873", segmentationId: "66140215fb50effc8a7218b6")

    static let project = MockProject(token: "mock-project", apiKey: "mock-key")
    static let context = SegmentsRequestContext(projectToken: "mock-project", authorization: .token("mock-key"))

    /// Enters `viewer` (discovery) after 3 `view_item`, leaves on `purchase`.
    static let viewerRule = SegmentRule(
        category: .discovery, segment: viewer, entersAfter: (eventType: "view_item", count: 3), leavesOn: "purchase")

    /// An event of `type` for `ids`.
    static func event(_ type: String, _ ids: [String: String], properties: [String: JSONValue] = [:]) -> TrackedEvent {
        TrackedEvent(customerIds: ids, eventType: type, timestamp: 1_700_000_000, properties: properties)
    }

    /// An event of `type` for the anonymous customer with `cookie`.
    static func event(_ type: String, cookie: String) -> TrackedEvent {
        event(type, ["cookie": cookie])
    }

    /// A backend where user `u1` (cookie `c1`) is in `viewer` by script, with `buyer` declared.
    static func backendWithViewer() -> SegmentsBackend {
        let backend = SegmentsBackend()
        backend.setAudiences([buyer.id])
        backend.identifyQualifiedUser("u1", cookie: "c1")
        backend.setSegments([viewer], category: .discovery, forCookie: "c1")
        return backend
    }
}

/// A clock the test moves by hand, for exact `changedAt` values.
final class FakeNanosecondClock: Sendable {
    private let nanoseconds: NIOLockedValueBox<UInt64>

    init(start: UInt64 = 1_000) { self.nanoseconds = NIOLockedValueBox(start) }

    func now() -> UInt64 { nanoseconds.withLockedValue { $0 } }
    func advance(by delta: UInt64) { nanoseconds.withLockedValue { $0 += delta } }
}

/// Polls `condition` until it holds, for at most `seconds` (then fails the test): the bounded way
/// to wait for another task to reach a state, without depending on how long it takes.
func waitUntil(
    seconds: Double = 10, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
) async {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            XCTFail("condition not met within \(seconds) s", file: file, line: line)
            return
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<Value>(
    _ expected: SegmentsError, file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> Value
) async {
    do {
        let value = try await body()
        XCTFail("expected \(expected), got \(value)", file: file, line: line)
    } catch {
        XCTAssertEqual(error as? SegmentsError, expected, file: file, line: line)
    }
}
