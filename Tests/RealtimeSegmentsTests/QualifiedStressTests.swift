import Foundation
@testable import RealtimeSegments
import XCTest

/// SPEC §9 under contention: many threads fetching, assigning and reading across users, with a
/// cache small enough to evict constantly. Run under ThreadSanitizer.
final class QualifiedStressTests: XCTestCase {
    func testConcurrentFetchesAssignmentsAndReadsAcrossUsersStayConsistent() {
        // Every user's answer is its own ("own-u3" for u3, with "a" and "b" in some), so an answer
        // that reached the wrong user shows.
        let answers = (0..<8).map { Array(["a", "b"].suffix($0 % 3)) + ["own-u\($0)"] }
        let fixture = QualifiedFixture(
            segmentsToCheck: ["a", "b"] + (0..<8).map { "own-u\($0)" }, cacheSize: 3, cacheTimeout: .seconds(1))
        for index in 0..<8 { fixture.transport.setQualifiedSegments(answers[index], forUser: "u\(index)") }
        let users = (0..<8).map { fixture.user("u\($0)") }
        let completions = Locked<[XCTestExpectation]>([])
        let failures = Locked(0)
        // Fetch calls by kind: an ignoreCache call always sends its own request; a plain one sends
        // one only on a miss it does not share with a request in flight.
        let plainCalls = Locked(0)
        let ignoreCacheCalls = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<200 {
                let user = users[(worker * 7 + step) % users.count]
                switch step % 6 {
                case 0:
                    plainCalls.withLock { $0 += 1 }
                    do { try user.fetchQualifiedSegmentsAndWait() } catch { failures.withLock { $0 += 1 } }
                case 1:
                    plainCalls.withLock { $0 += 1 }
                    completions.withLock { $0.append(fixture.startFetch(user)) }
                case 2:
                    user.qualifiedSegments = ["x"]
                case 3:
                    ignoreCacheCalls.withLock { $0 += 1 }
                    completions.withLock { $0.append(fixture.startFetch(user, options: [.ignoreCache])) }
                case 4:
                    if step % 60 == 4 { fixture.clock.advance(by: .milliseconds(400)) }
                    _ = user.isQualifiedFor(segment: "a")
                default:
                    if let segments = user.qualifiedSegments {
                        let index = (worker * 7 + step) % users.count
                        XCTAssertTrue(segments == ["x"] || Set(segments) == Set(answers[index]), "u\(index) got \(segments)")
                    }
                }
            }
        }
        wait(for: completions.withLock { $0 }, timeout: 60)
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertLessThanOrEqual(fixture.cache.count, 3)
        // Every request is an ignoreCache call's own or a plain call's miss. Misses cannot be bounded
        // more tightly: 8 users cycling through a 3-entry cache make most plain calls miss.
        let ignoreCache = ignoreCacheCalls.withLock { $0 }
        XCTAssertGreaterThanOrEqual(fixture.transport.qualifiedFetchCount, ignoreCache)
        XCTAssertLessThanOrEqual(fixture.transport.qualifiedFetchCount, ignoreCache + plainCalls.withLock { $0 })
        // The last value is the assignment or the user's own answer (never another user's; never nil,
        // as every user is assigned at least once).
        for (index, user) in users.enumerated() {
            let last = user.qualifiedSegments
            XCTAssertTrue(last == ["x"] || last == answers[index], "u\(index): \(String(describing: last))")
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
