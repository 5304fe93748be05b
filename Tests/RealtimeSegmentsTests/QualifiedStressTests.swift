import Foundation
@testable import RealtimeSegments
import XCTest

/// SPEC §9 under contention: many threads fetching, assigning and reading across users, with a
/// cache small enough to evict constantly. Run under ThreadSanitizer.
final class QualifiedStressTests: XCTestCase {
    func testConcurrentFetchesAssignmentsAndReadsAcrossUsersStayConsistent() {
        let fixture = QualifiedFixture(cacheSize: 3, cacheTimeout: .seconds(1))
        for index in 0..<8 { fixture.transport.setQualifiedSegments(["a", "b"].suffix(index % 3), forUser: "u\(index)") }
        let users = (0..<8).map { fixture.user("u\($0)") }
        let completions = Locked<[XCTestExpectation]>([])
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<200 {
                let user = users[(worker * 7 + step) % users.count]
                switch step % 6 {
                case 0:
                    do { try user.fetchQualifiedSegmentsAndWait() } catch { failures.withLock { $0 += 1 } }
                case 1:
                    completions.withLock { $0.append(fixture.startFetch(user)) }
                case 2:
                    user.qualifiedSegments = ["x"]
                case 3:
                    completions.withLock { $0.append(fixture.startFetch(user, options: [.ignoreCache])) }
                case 4:
                    if step % 60 == 4 { fixture.clock.advance(by: .milliseconds(400)) }
                    _ = user.isQualifiedFor(segment: "a")
                default:
                    if let segments = user.qualifiedSegments {
                        XCTAssertTrue(segments == ["x"] || Set(segments).isSubset(of: ["a", "b"]), "\(segments)")
                    }
                }
            }
        }
        wait(for: completions.withLock { $0 }, timeout: 60)
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertLessThanOrEqual(fixture.cache.count, 3)
        XCTAssertLessThanOrEqual(fixture.transport.qualifiedFetchCount, 8 * 200 / 2)
        for user in users {
            XCTAssertNotNil(user.qualifiedSegments)
        }
    }

    func testConcurrentAsyncFetchesFromManyTasksAllComplete() async throws {
        let fixture = QualifiedFixture(cacheSize: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                group.addTask {
                    let user = fixture.user("u\(index % 16)")
                    try await user.fetchQualifiedSegments(options: index % 10 == 0 ? [.ignoreCache] : [])
                    XCTAssertEqual(user.qualifiedSegments, ["a"])
                }
            }
            try await group.waitForAll()
        }
        XCTAssertLessThanOrEqual(fixture.cache.count, 4)
    }
}
