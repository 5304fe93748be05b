import Foundation
@testable import RealtimeSegments
import XCTest

/// SPEC §9: the user context — its three fetch forms, `qualifiedSegments` and `isQualifiedFor`.
final class QualifiedUserContextTests: XCTestCase {
    func testCreatingAContextWithAnEmptyUserIdFails() {
        let fixture = QualifiedFixture()
        XCTAssertThrowsError(try fixture.client.createUserContext(userId: "")) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidArgument("userId is empty"))
        }
    }

    func testSegmentsAreNilBeforeTheFirstFetch() {
        XCTAssertNil(QualifiedFixture().user("jane").qualifiedSegments)
    }

    func testIsQualifiedForIsFalseWhileSegmentsAreNil() {
        XCTAssertFalse(QualifiedFixture().user("jane").isQualifiedFor(segment: "a"))
    }

    func testIsQualifiedForTellsMembership() {
        let user = QualifiedFixture().user("jane")
        user.qualifiedSegments = ["a", "b"]
        XCTAssertTrue(user.isQualifiedFor(segment: "a"))
        XCTAssertTrue(user.isQualifiedFor(segment: "b"))
        XCTAssertFalse(user.isQualifiedFor(segment: "x"))
    }

    func testIsQualifiedForIsFalseForEmptySegments() {
        let user = QualifiedFixture().user("jane")
        user.qualifiedSegments = []
        XCTAssertFalse(user.isQualifiedFor(segment: "a"))
    }

    func testAssigningSegmentsReplacesThemAndTheMembership() {
        let user = QualifiedFixture().user("jane")
        user.qualifiedSegments = ["a"]
        user.qualifiedSegments = ["b", "c"]
        XCTAssertEqual(user.qualifiedSegments, ["b", "c"])
        XCTAssertFalse(user.isQualifiedFor(segment: "a"))
        XCTAssertTrue(user.isQualifiedFor(segment: "c"))
        user.qualifiedSegments = nil
        XCTAssertNil(user.qualifiedSegments)
        XCTAssertFalse(user.isQualifiedFor(segment: "b"))
    }

    func testIsQualifiedForFollowsAFetch() async throws {
        let fixture = QualifiedFixture()
        fixture.transport.setQualifiedSegments(["c", "a"], forUser: "jane")
        let jane = fixture.user("jane")
        try await jane.fetchQualifiedSegments()
        XCTAssertTrue(jane.isQualifiedFor(segment: "c"))
        XCTAssertFalse(jane.isQualifiedFor(segment: "b"))
    }

    // MARK: Forms

    func testAsyncFormStoresTheSegmentsBeforeReturning() async throws {
        let fixture = QualifiedFixture()
        let jane = fixture.user("jane")
        try await jane.fetchQualifiedSegments()
        XCTAssertEqual(jane.qualifiedSegments, ["a"])
    }

    func testCompletionFormStoresTheSegmentsBeforeCompleting() {
        let fixture = QualifiedFixture()
        let jane = fixture.user("jane")
        let seen = Locked<[String]??>(nil)
        let done = expectation(description: "completed")
        jane.fetchQualifiedSegments { error in
            XCTAssertNil(error)
            seen.withLock { $0 = .some(jane.qualifiedSegments) }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(seen.withLock { $0 }, .some(["a"]))
    }

    func testCompletionFormPassesTheError() {
        let fixture = QualifiedFixture()
        fixture.transport.failNext(.fetchQualifiedSegments, with: .fetchSegmentsFailed("403"))
        let outcomes = Locked<[SegmentsError?]>([])
        wait(for: [fixture.startFetch(fixture.user("jane"), outcome: outcomes)], timeout: 30)
        XCTAssertEqual(outcomes.withLock { $0 }, [.fetchSegmentsFailed("403")])
    }

    func testCompletionFormCompletesACacheHitOnTheCallersThreadBeforeReturning() async throws {
        let fixture = QualifiedFixture()
        try await fixture.user("jane").fetchQualifiedSegments()
        let completed = Locked(false)
        fixture.user("jane").fetchQualifiedSegments { error in
            XCTAssertNil(error)
            completed.withLock { $0 = true }
        }
        XCTAssertTrue(completed.withLock { $0 })
    }

    /// Under either name; `try user.fetchQualifiedSegments()` in synchronous code is the reference
    /// SDK's blocking call, as its documentation writes it (SPEC §9: one name for the async,
    /// completion and blocking forms).
    func testBlockingFormStoresTheSegmentsBeforeReturning() throws {
        let forms: [(String, (QualifiedUserContext) throws -> Void)] = [
            ("fetchQualifiedSegmentsAndWait", { try $0.fetchQualifiedSegmentsAndWait() }),
            ("fetchQualifiedSegments", { try $0.fetchQualifiedSegments() }),
        ]
        for (name, fetch) in forms {
            let fixture = QualifiedFixture()
            let jane = fixture.user("jane")
            try fetch(jane)
            XCTAssertEqual(jane.qualifiedSegments, ["a"], name)
            XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1, name)
            fixture.transport.failNext(.fetchQualifiedSegments, with: .invalidSegmentIdentifier)
            XCTAssertThrowsError(try fetch(fixture.user("joe")), name) { error in
                XCTAssertEqual(error as? SegmentsError, .invalidSegmentIdentifier, name)
            }
        }
    }

    func testBlockingFormServesACacheHitWithoutARequest() throws {
        let fixture = QualifiedFixture()
        try fixture.user("jane").fetchQualifiedSegmentsAndWait()
        let again = fixture.user("jane")
        try again.fetchQualifiedSegmentsAndWait()
        XCTAssertEqual(again.qualifiedSegments, ["a"])
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, 1)
    }

    func testBlockingFormThrowsTheError() {
        let fixture = QualifiedFixture()
        fixture.transport.failNext(.fetchQualifiedSegments, with: .invalidSegmentIdentifier)
        XCTAssertThrowsError(try fixture.user("jane").fetchQualifiedSegmentsAndWait()) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidSegmentIdentifier)
        }
    }

    func testBlockingCallsOnEveryCooperativeThreadStillComplete() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let callers = 2 * threads
        let done = (0..<callers).map { expectation(description: "caller \($0)") }
        for index in 0..<callers {
            let user = fixture.user("user-\(index)")
            let finished = done[index]
            Task.detached {
                // Blocks a cooperative-pool thread until the answer arrives.
                XCTAssertNoThrow(try user.fetchQualifiedSegmentsAndWait())
                finished.fulfill()
            }
        }
        // Every pool thread is now parked in a blocking call whose request is held. Had the
        // requests needed the pool, none of them could have reached the transport.
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= threads }
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: done, timeout: 60)
        XCTAssertEqual(fixture.transport.qualifiedFetchCount, callers)
    }

    // MARK: Keeping and replacing values

    /// As the reference SDK's tests pin it: a failed fetch leaves the user's segments `nil`, even
    /// over a value set before (the server may just have said the user is unknown), in every form.
    func testAFailedFetchLeavesTheSegmentsNilOverAPreviousValue() async throws {
        for error in [SegmentsError.fetchSegmentsFailed("500"), .invalidSegmentIdentifier] {
            let fixture = QualifiedFixture()
            let jane = fixture.user("jane")
            jane.qualifiedSegments = ["dummy"]
            fixture.transport.failNext(.fetchQualifiedSegments, with: error)
            try? await jane.fetchQualifiedSegments()
            XCTAssertNil(jane.qualifiedSegments, "async, \(error)")
            XCTAssertFalse(jane.isQualifiedFor(segment: "dummy"))

            jane.qualifiedSegments = ["dummy"]
            fixture.transport.failNext(.fetchQualifiedSegments, with: error)
            XCTAssertThrowsError(try jane.fetchQualifiedSegmentsAndWait(options: [.ignoreCache]))
            XCTAssertNil(jane.qualifiedSegments, "blocking, \(error)")

            jane.qualifiedSegments = ["dummy"]
            fixture.transport.failNext(.fetchQualifiedSegments, with: error)
            let failed = await withCheckedContinuation { continuation in
                jane.fetchQualifiedSegments(options: [.ignoreCache]) { continuation.resume(returning: $0) }
            }
            XCTAssertNotNil(failed)
            XCTAssertNil(jane.qualifiedSegments, "completion, \(error)")
        }
    }

    func testFailedFirstFetchLeavesSegmentsNil() async {
        let fixture = QualifiedFixture(apiKey: nil)
        let jane = fixture.user("jane")
        try? await jane.fetchQualifiedSegments()
        XCTAssertNil(jane.qualifiedSegments)
    }

    func testSegmentsKeepTheirPreviousValueWhileAFetchIsInFlight() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let jane = fixture.user("jane")
        jane.qualifiedSegments = ["old"]
        let fetch = fixture.startFetch(jane)
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 1 }
        XCTAssertEqual(jane.qualifiedSegments, ["old"])
        XCTAssertTrue(jane.isQualifiedFor(segment: "old"))
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: [fetch], timeout: 30)
        XCTAssertEqual(jane.qualifiedSegments, ["a"])
    }

    func testAssignmentMadeDuringAFetchWinsOverItsAnswer() {
        let fixture = QualifiedFixture()
        fixture.transport.holdQualifiedFetches()
        let jane = fixture.user("jane")
        let fetch = fixture.startFetch(jane)
        waitUntil(timeout: 30) { fixture.transport.heldQualifiedFetchCount >= 1 }
        jane.qualifiedSegments = ["manual"]
        fixture.transport.releaseHeldQualifiedFetches()
        wait(for: [fetch], timeout: 30)
        XCTAssertEqual(jane.qualifiedSegments, ["manual"])
    }
}
