import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// SPEC §7 and "nothing is lost": link-ids only when hard ids changed; uploads retried, never dropped;
/// every request carries the project token and authorization.
final class UploadAndLinkTests: XCTestCase {
    func testAnAnonymousCustomerIsNeverLinked() {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        XCTAssertTrue(fixture.transport.linkCalls.isEmpty)
    }

    func testLinkIdsRunsBeforeTheFetchOnlyWhenHardIdsChangedSinceTheLastLink() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.linkCalls, [.init(cookie: fixture.cookie, externalIds: ["registered": "jane"])])

        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 2)
        XCTAssertEqual(fixture.transport.linkCalls.count, 1, "unchanged ids are not linked again")

        try fixture.client.identifyCustomer(customerIds: ["email": "jane@example.com"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.linkCalls.last?.externalIds, ["registered": "jane", "email": "jane@example.com"])
    }

    /// SPEC §7 and §8: a failed link skips the fetch and logs the merge line, whole: the ids sorted
    /// as `{key=value, ...}`, then the error's description.
    func testALinkFailureLogsTheMergeLineSkipsTheFetchAndIsRetriedNextCheck() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.linkCustomerIds, with: .serverError(status: 502))
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.fetchCount, 0)
        XCTAssertEqual(
            fixture.logs.count(prefix: "Segments: Customer IDs {cookie=\(fixture.cookie), registered=jane} merge failed, unable to fetch segments"),
            1)
        XCTAssertEqual(
            fixture.logs.messages.filter { $0.hasPrefix("Segments: Customer IDs") },
            ["Segments: Customer IDs {cookie=\(fixture.cookie), registered=jane} merge failed, unable to fetch segments due to server error (HTTP 502)"])
        _ = fixture.register(.content)
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.linkCalls.count, 2)
        XCTAssertEqual(fixture.transport.fetchCount, 1)
        XCTAssertEqual(fixture.recorder.count(tag: "d"), 1, "the first load survived the failed check")
    }

    func testAFetchFailureLogsTheExactLine() {
        let fixture = Fixture()
        fixture.transport.failNext(.fetchSegments, with: .malformedResponse("expected Array at discovery"))
        _ = fixture.register(.discovery)
        fixture.startAndRunInitialCheck()
        XCTAssertTrue(fixture.logs.contains("Segments: Fetch of segments failed: malformed response: expected Array at discovery"))
    }

    /// SPEC §8: every segmentation line starts with `Segments:`. Drives two clients through the
    /// paths that log (a configuration brought into range, starts with and without callbacks, a
    /// tracked event with no callback, registrations, an identify with a hard id, failed link,
    /// upload and fetch, a customer switch while a fetch is held, anonymize, `getSegments` that
    /// fails, succeeds and is refused, stop, and calls after it), then checks every line.
    func testEveryLogLineStartsWithTheSegmentsPrefix() throws {
        let withoutCallbacks = Fixture()
        withoutCallbacks.client.start()
        withoutCallbacks.settle()
        try withoutCallbacks.client.trackEvent(eventType: "view")
        withoutCallbacks.settle()
        withoutCallbacks.client.stop()

        let fixture = Fixture { $0.maxPullRefetches = -1 }
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.other("")))
        fixture.startAndRunInitialCheck()
        // A failed link.
        fixture.transport.failNext(.linkCustomerIds, with: .serverError(status: 502))
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        fixture.settle()
        fixture.advance(.seconds(5))
        // A failed upload, retried after 1 s, then a failed fetch.
        fixture.transport.failNext(.trackEvents, with: .connectionFailed("reset"))
        fixture.transport.failNext(.fetchSegments, with: .timeout)
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.advance(.seconds(1))
        fixture.advance(.seconds(5))
        // A check that delivers.
        fixture.transport.defaultResponse = response([.discovery: [1]])
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.advance(.seconds(5))
        // A customer switch while the check's fetch is held.
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.holdTheNextCheck()
        fixture.client.anonymize()
        fixture.transport.releaseHeldFetches()
        fixture.settle()
        fixture.advance(.seconds(5))
        // getSegments: a failed fetch, a success, a refused category.
        fixture.transport.failNext(.fetchSegments, with: .serverError(status: 500))
        fixture.client.getSegments(category: .content, force: true) { _ in }
        fixture.settle()
        fixture.client.getSegments(category: .discovery, force: true) { _ in }
        fixture.settle()
        fixture.client.getSegments(category: .other("")) { _ in }
        fixture.settle()
        // Stop, and calls after it.
        fixture.client.stop()
        fixture.settle()
        fixture.client.start()
        fixture.client.anonymize()
        fixture.client.flush()
        fixture.client.getSegments(category: .discovery) { _ in }
        fixture.settle()

        let lines = withoutCallbacks.logs.messages + fixture.logs.messages
        // The paths above ran: a sample of the lines they log.
        for expected in [
            "Segments: Skipping initial segments update process for no callback",
            "Segments: Skipping segments update process after tracked event due to no callback registered",
            "Segments: Check process was canceled because customer has changed",
            "Segments: New data are ignored because were loaded for different customer",
        ] {
            XCTAssertTrue(lines.contains(expected), "not logged: \(expected)")
        }
        for expectedPrefix in [
            "Segments: Customer IDs {cookie=",
            "Segments: Upload of 1 events failed: connection failed: reset",
            "Segments: Fetch of segments failed: request timed out",
            "Segments: Fetch of segments failed: server error (HTTP 500)",
            "Segments: getSegments(",
        ] {
            XCTAssertTrue(lines.contains { $0.hasPrefix(expectedPrefix) }, "not logged: \(expectedPrefix)…")
        }
        let offending = lines.filter { !$0.hasPrefix("Segments: ") }
        XCTAssertTrue(
            offending.isEmpty,
            "\(offending.count) of \(lines.count) lines lack the `Segments: ` prefix:\n" + offending.joined(separator: "\n"))
    }

    func testEveryRequestCarriesTheProjectTokenAndAuthorization() throws {
        let fixture = Fixture()
        _ = fixture.register(.discovery)
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane"])
        try fixture.client.trackEvent(eventType: "view")
        fixture.settle()
        fixture.advance(.seconds(5))
        XCTAssertEqual(fixture.transport.contexts, [SegmentsRequestContext(projectToken: Fixture.token, authorization: .token("secret"))])
    }

    func testAWrongTokenIsAnErrorNotSilentNoData() async {
        let transport = InMemorySegmentsTransport(expectedProjectToken: "right")
        let fixture = Fixture(transport: transport)
        fixture.client.start()
        do {
            _ = try await fixture.client.getSegments(category: .discovery)
            XCTFail("expected unauthorized")
        } catch {
            XCTAssertEqual(error, .unauthorized(status: 401))
        }
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Fetch of segments failed: not authorized (HTTP 401)"), 1)
    }

    func testAFailedUploadIsKeptAndRetriedWithBackoff() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.trackEvents, with: .connectionFailed("reset"), count: 2)
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "purchase")
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0)
        fixture.advance(.milliseconds(999))
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 1, "no retry before the first backoff (1 s)")
        fixture.advance(.milliseconds(1))
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 2)
        fixture.advance(.milliseconds(1_999))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0, "second backoff is 2 s")
        fixture.advance(.milliseconds(1))
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["purchase"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Upload of 1 events failed: connection failed: reset"), 2)
    }

    func testEventsKeepTheirOrderAcrossFailuresAndBatches() throws {
        let fixture = Fixture { $0.maxUploadBatchSize = 7 }
        fixture.transport.failNext(.trackEvents, with: .serverError(status: 503))
        fixture.client.start()
        for index in 0..<50 { try fixture.client.trackEvent(eventType: "e\(index)") }
        fixture.settle()
        for _ in 0..<20 { fixture.advance(.seconds(1)) }
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), (0..<50).map { "e\($0)" })
    }

    func testWhenTheRingIsFullProducersAreSlowedButNoEventIsDropped() throws {
        let fixture = Fixture { $0.ingestCapacity = 4 }
        fixture.client.start()
        let client = fixture.client
        DispatchQueue.concurrentPerform(iterations: 4) { producer in
            for index in 0..<2_500 { try? client.trackEvent(eventType: "p\(producer)-\(index)") }
        }
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.count, 10_000)
        XCTAssertGreaterThan(fixture.client.statistics.producerStalls, 0)
    }

    /// An event that waited for room (the call's out-of-line path) arrives whole: its type,
    /// properties and timestamp, in call order.
    func testEventsThatWaitedForRoomArriveWholeAndInOrder() throws {
        let fixture = Fixture { $0.ingestCapacity = 2 }
        fixture.client.start()
        let count = 3_000
        for index in 0..<count {
            try fixture.client.trackEvent(
                eventType: "e\(index)", properties: ["index": .number(Double(index))],
                timestamp: index.isMultiple(of: 2) ? Double(index) : nil)
        }
        fixture.settle()
        let tracked = fixture.transport.trackedEvents
        XCTAssertGreaterThan(fixture.client.statistics.producerStalls, 0, "some calls waited for room")
        XCTAssertEqual(tracked.count, count)
        let wrong = tracked.indices.filter { index in
            let event = tracked[index]
            return event.eventType != "e\(index)" || event.properties["index"] != .number(Double(index))
                || event.timestamp != (index.isMultiple(of: 2) ? Double(index) : fixture.clock.wallClockSeconds())
        }
        XCTAssertEqual(Array(wrong.prefix(5)), [], "\(wrong.count) events arrived changed or out of order")
    }

    func testEventTimestampsComeFromTheClockOrTheCaller() throws {
        let fixture = Fixture()
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "now")
        try fixture.client.trackEvent(eventType: "given", timestamp: 42)
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.timestamp), [fixture.clock.wallClockSeconds(), 42])
    }

    func testANonFiniteTimestampIsRefusedAndNothingIsQueued() throws {
        let fixture = Fixture()
        fixture.client.start()
        for bad in [Double.nan, .infinity, -.infinity] {
            XCTAssertThrowsError(try fixture.client.trackEvent(eventType: "bad", timestamp: bad)) { error in
                guard case SegmentsError.invalidArgument = error else { return XCTFail("unexpected \(error)") }
            }
        }
        try fixture.client.trackEvent(eventType: "good")
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["good"])
    }

    /// `trackEvent` reads no clock: an event without a timestamp is stamped by the engine thread.
    func testTheEngineNotTheCallReadsTheClockForAnUnstampedEvent() throws {
        let clock = ReaderRecordingClock()
        let fixture = Fixture { $0.clock = clock }
        fixture.client.start()
        let caller = Thread.current
        try fixture.client.trackEvent(eventType: "now")
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.timestamp), [clock.inner.wallClockSeconds()])
        XCTAssertGreaterThan(clock.readers.count, 0, "the engine read the clock to stamp the event")
        XCTAssertFalse(clock.readers.contains { $0 === caller }, "the calling thread read the clock")
    }

    /// An engine stamp never comes before its call, even when producers claim slots while the
    /// engine is taking a batch (the stamp serves only slots claimed before it was read).
    func testNoEngineStampComesBeforeItsCall() throws {
        let fixture = Fixture { $0.clock = SystemClock() }
        fixture.client.start()
        let clock = SystemClock()
        let perProducer = 5_000
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<perProducer {
                let calledAt = clock.wallClockSeconds()
                try? fixture.client.trackEvent(eventType: "e", properties: ["calledAt": .number(calledAt)])
            }
        }
        fixture.settle()
        let events = fixture.transport.trackedEvents
        XCTAssertEqual(events.count, 2 * perProducer)
        let early = events.filter { event in
            guard case .number(let calledAt)? = event.properties["calledAt"] else { return true }
            return event.timestamp < calledAt
        }
        XCTAssertEqual(early.count, 0, "events stamped before their call")
    }

    func testOnTheSystemClockEventsAreStampedWithTheWallClock() throws {
        let fixture = Fixture { $0.clock = SystemClock() }
        fixture.client.start()
        let before = Date().timeIntervalSince1970
        try fixture.client.trackEvent(eventType: "now")
        fixture.settle()
        let after = Date().timeIntervalSince1970
        let stamp = try XCTUnwrap(fixture.transport.trackedEvents.first?.timestamp)
        // The engine stamps the event between the call and its upload, with the precise wall
        // clock. A millisecond either side absorbs the rounding of `Date`; any other clock
        // (uptime, or zero) is far outside.
        XCTAssertGreaterThanOrEqual(stamp, before - 0.001)
        XCTAssertLessThanOrEqual(stamp, after + 0.001)
    }
}

/// A manual clock that notes every thread that reads its wall clock.
private final class ReaderRecordingClock: SteppedClock, @unchecked Sendable {
    // @unchecked Sendable: `threads` is only read or written while `lock` is held. An `NSLock`
    // rather than `Synchronization.Mutex`, which ThreadSanitizer cannot see on Linux (this suite
    // runs under it in CI).
    let inner = ManualClock()
    private let lock = NSLock()
    private var threads: [Thread] = []

    var readers: [Thread] { lock.withLock { threads } }

    func now() -> SegmentsInstant { inner.now() }

    func wallClockSeconds() -> Double {
        lock.withLock { threads.append(Thread.current) }
        return inner.wallClockSeconds()
    }

    func sleep(until deadline: SegmentsInstant?, wakeup: EngineWakeup) { inner.sleep(until: deadline, wakeup: wakeup) }
}
