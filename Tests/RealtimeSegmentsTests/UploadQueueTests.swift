import XCTest

@testable import RealtimeSegments

/// The upload queue sends several uploads per round trip, one after another: what is accepted
/// leaves the queue, and everything from the first failure on is kept, in tracking order.
final class UploadQueueTests: XCTestCase {
    private let policy = RetryPolicy(initial: .seconds(1), maximum: .seconds(60), jitter: 0)
    private var random = SystemRandomNumberGenerator()

    private func event(_ name: String) -> UploadItem {
        .event(TrackedEvent(customerIds: ["cookie": "c"], eventType: name, timestamp: 0, properties: [:]))
    }

    private func customer(_ name: String) -> UploadItem {
        .customer(CustomerUpdate(customerIds: ["cookie": "c"], properties: ["name": .string(name)]))
    }

    private func names(_ items: [UploadItem]) -> [String] {
        items.map {
            switch $0 {
            case .event(let event): event.eventType
            case .customer(let update): if case .string(let name) = update.properties["name"] { "customer:\(name)" } else { "customer" }
            }
        }
    }

    private func names(_ uploads: [UploadQueue.Upload]) -> [[String]] {
        uploads.map { names($0.items) }
    }

    /// e1 e2 e3 | customer a | e4 e5, in batches of at most 2 events.
    private func mixedQueue() -> UploadQueue {
        UploadQueue([event("e1"), event("e2"), event("e3"), customer("a"), event("e4"), event("e5")])
    }

    func testUploadsAreTakenInOrderUpToTheLimitAndCountAsQueuedUntilAnswered() throws {
        var queue = mixedQueue()
        let uploads = try XCTUnwrap(queue.next(maxBatchSize: 2, maxUploads: 3))
        XCTAssertEqual(names(uploads), [["e1", "e2"], ["e3"], ["customer:a"]])
        XCTAssertTrue(queue.isInFlight)
        XCTAssertEqual(queue.count, 6)
        XCTAssertEqual(names(queue.items), ["e1", "e2", "e3", "customer:a", "e4", "e5"])
        XCTAssertNil(queue.next(maxBatchSize: 2, maxUploads: 3), "one round trip in flight at a time")
    }

    func testEverythingAcceptedLeavesTheQueue() throws {
        var queue = mixedQueue()
        _ = try XCTUnwrap(queue.next(maxBatchSize: 2, maxUploads: 3))
        let resolution = queue.resolve(UploadOutcome(accepted: 3), policy: policy, random: &random)
        XCTAssertEqual(resolution.removed, 4)
        XCTAssertEqual(resolution.eventsDelivered, 3)
        XCTAssertNil(resolution.failure)
        XCTAssertFalse(queue.isInFlight)
        XCTAssertEqual(names(queue.items), ["e4", "e5"])
    }

    func testAFailureKeepsThatUploadAndTheUnsentOnesAtTheFrontInOrder() throws {
        var queue = mixedQueue()
        _ = try XCTUnwrap(queue.next(maxBatchSize: 2, maxUploads: 3))
        let resolution = queue.resolve(
            UploadOutcome(accepted: 1, error: .serverError(status: 503)), policy: policy, random: &random)
        XCTAssertEqual(resolution.removed, 2, "the first upload was accepted")
        XCTAssertEqual(resolution.eventsDelivered, 2)
        XCTAssertEqual(resolution.failure, .serverError(status: 503))
        XCTAssertEqual(resolution.retryDelay, .seconds(1))
        XCTAssertEqual(names(queue.items), ["e3", "customer:a", "e4", "e5"])
        // The retry starts with the upload that failed.
        let retry = try XCTUnwrap(queue.next(maxBatchSize: 2, maxUploads: 3))
        XCTAssertEqual(names(retry), [["e3"], ["customer:a"], ["e4", "e5"]])
    }

    func testAPartialAnswerInALaterUploadTakesOnlyWhatWasAnswered() throws {
        var queue = UploadQueue([event("e1"), event("e2"), event("e3"), event("e4"), event("e5")])
        _ = try XCTUnwrap(queue.next(maxBatchSize: 2, maxUploads: 3))
        // The second upload (e3 e4): e3 answered and refused, then a timeout.
        let resolution = queue.resolve(
            UploadOutcome(
                accepted: 1,
                error: .partialUpload(answered: 1, refused: [CommandRefusal(index: 0, reason: "bad")], then: .timeout)),
            policy: policy, random: &random)
        XCTAssertEqual(resolution.removed, 3)
        XCTAssertEqual(resolution.eventsDelivered, 2)
        XCTAssertEqual(resolution.setAside.map(\.reason), ["bad"])
        XCTAssertEqual(names(resolution.setAside.map(\.item)), ["e3"])
        XCTAssertEqual(resolution.failure, .timeout)
        XCTAssertEqual(names(queue.items), ["e4", "e5"])
    }

    func testAWrongKeyStopsUploadsWithEveryUnacceptedItemKept() throws {
        var queue = mixedQueue()
        _ = try XCTUnwrap(queue.next(maxBatchSize: 2, maxUploads: 3))
        let resolution = queue.resolve(
            UploadOutcome(accepted: 0, error: .unauthorized(status: 401)), policy: policy, random: &random)
        XCTAssertTrue(resolution.paused)
        XCTAssertEqual(resolution.removed, 0)
        XCTAssertEqual(queue.count, 6)
        XCTAssertNil(queue.next(maxBatchSize: 2, maxUploads: 3))
    }

    func testWhileARefusedCommandIsSearchedForOneUploadGoesAtATime() throws {
        var queue = UploadQueue([event("e1"), event("e2"), event("e3"), event("e4"), event("e5")])
        _ = try XCTUnwrap(queue.next(maxBatchSize: 4, maxUploads: 3))
        // The first upload (e1...e4) is refused as a whole: it is sent again in halves.
        _ = queue.resolve(UploadOutcome(accepted: 0, error: .unexpectedStatus(400)), policy: policy, random: &random)
        let probe = try XCTUnwrap(queue.next(maxBatchSize: 4, maxUploads: 3))
        XCTAssertEqual(names(probe), [["e1", "e2"]])
    }

    /// Once the refused command is found and set aside, the rest of the refused batch goes out
    /// whole again (and is searched again only if it is refused too), not one event per request.
    func testAfterTheRefusedCommandIsSetAsideTheRestOfTheBatchGoesOutWhole() throws {
        var queue = UploadQueue((0..<16).map { event($0 == 0 ? "bad" : "e\($0)") })
        var sizes: [Int] = []
        while let uploads = queue.next(maxBatchSize: 16, maxUploads: 1) {
            let upload = try XCTUnwrap(uploads.first)
            sizes.append(upload.count)
            let carriesBad = names(upload.items).contains("bad")
            _ = queue.resolve(
                carriesBad ? UploadOutcome(accepted: 0, error: .unexpectedStatus(400)) : UploadOutcome(accepted: upload.count, error: nil),
                policy: policy, random: &random)
        }
        XCTAssertEqual(queue.count, 0)
        XCTAssertEqual(sizes, [16, 8, 4, 2, 1, 15], "halves down to the refused event, then the other 15 at once")
    }
}
