import Foundation
@testable import RealtimeSegments
import XCTest

/// Issue 32: the `Result` completion form of `getSegments` tells "no segments" from "failed"; the
/// `[Segment]` form (Exponea's) keeps giving `[]` for both.
final class PullResultTests: XCTestCase {
    /// Both completion forms' answers to the same call (each waited for, at most 10 s).
    private func outcomes(
        _ fixture: Fixture, _ category: SegmentCategory, force: Bool = false
    ) -> (result: Result<[Segment], SegmentsError>?, array: [Segment]?) {
        let answered = DispatchSemaphore(value: 0)
        let result = Locked<Result<[Segment], SegmentsError>?>(nil)
        let array = Locked<[Segment]?>(nil)
        fixture.client.getSegments(category: category, force: force, completion: { outcome in
            result.withLock { $0 = outcome }
            answered.signal()
        })
        XCTAssertEqual(answered.wait(timeout: .now() + 10), .success)
        fixture.client.getSegments(category: category, force: force, result: { segments in
            array.withLock { $0 = segments }
            answered.signal()
        })
        XCTAssertEqual(answered.wait(timeout: .now() + 10), .success)
        return (result.withLock { $0 }, array.withLock { $0 })
    }

    func testSegmentsAreASuccess() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let (result, array) = outcomes(fixture, .discovery, force: true)
        XCTAssertEqual(result, .success([segment(1)]))
        XCTAssertEqual(array, [segment(1)])
    }

    func testNoSegmentsIsAnEmptySuccess() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let (result, array) = outcomes(fixture, .content)
        XCTAssertEqual(result, .success([]))
        XCTAssertEqual(array, [])
    }

    func testAFailedFetchIsAFailureInTheResultFormAndEmptyInTheArrayForm() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        fixture.transport.failNext(.fetchSegments, with: .serverError(status: 500), count: 2)
        let (result, array) = outcomes(fixture, .discovery, force: true)
        XCTAssertEqual(result, .failure(.serverError(status: 500)))
        XCTAssertEqual(array, [])
        XCTAssertTrue(fixture.logs.contains("Segments: getSegments(discovery) returns [] because: server error (HTTP 500)"))
    }

    func testANotStartedClientIsAFailure() {
        let fixture = Fixture()
        let (result, array) = outcomes(fixture, .discovery)
        XCTAssertEqual(result, .failure(.notStarted))
        XCTAssertEqual(array, [])
    }

    func testAStoppedClientIsAFailure() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        fixture.client.stop()
        XCTAssertEqual(outcomes(fixture, .discovery).result, .failure(.stopped))
    }

    func testAnEmptyCategoryIsAnInvalidArgument() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        XCTAssertEqual(outcomes(fixture, .other("")).result, .failure(.invalidArgument("the category name is empty")))
    }

    /// Exponea's call shape, a trailing closure with an untyped parameter, still resolves to the
    /// `[Segment]` form (it would be ambiguous if the `Result` form were not disfavored).
    func testATrailingClosureStillPicksTheArrayForm() {
        let fixture = Fixture.started(answering: response([.discovery: [1]]))
        let answered = DispatchSemaphore(value: 0)
        let type = Locked<String?>(nil)
        fixture.client.getSegments(category: .discovery) { segments in
            type.withLock { $0 = Self.typeName(of: segments) }
            answered.signal()
        }
        XCTAssertEqual(answered.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(type.withLock { $0 }, "Array<Segment>")
    }

    private static func typeName<T>(of _: T) -> String { "\(T.self)" }
}
