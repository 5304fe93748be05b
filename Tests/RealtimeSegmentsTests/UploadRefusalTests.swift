import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// SPEC §7 upload answers and "nothing is lost": a transient failure is retried with backoff (and
/// `Retry-After`), a refusal is found and set aside without blocking the events behind it, and a
/// wrong key stops uploads without dropping anything.
final class UploadRefusalTests: XCTestCase {
    func testARefusedBatchIsSplitUntilTheRefusedEventIsSetAsideAndTheRestArrivesOnce() throws {
        let directory = temporaryDirectory()
        // Refuses, with a 400 for the whole request, any upload carrying an event of type "bad" (as a
        // real server refuses a request with one invalid command), and accepts the rest.
        let server = AdmittingTransport { events throws(SegmentsError) in
            if events.contains(where: { $0.eventType == "bad" }) { throw .unexpectedStatus(400) }
        }
        let fixture = Fixture(stateDirectory: directory) { $0.transport = server; $0.maxUploadBatchSize = 8 }
        fixture.client.start()
        fixture.settle()
        let types = (0..<8).map { $0 == 5 ? "bad" : "e\($0)" }
        fixture.client.flush()
        for type in types { try fixture.client.trackEvent(eventType: type) }
        fixture.settle()
        for _ in 0..<10 { fixture.advance(.seconds(1)) }

        XCTAssertEqual(server.accepted.trackedEvents.map(\.eventType), types.filter { $0 != "bad" })
        XCTAssertEqual(DeadLetterFile(directory: directory).entries().map { eventType(of: $0.item) }, ["bad"])
        XCTAssertEqual(DeadLetterFile(directory: directory).entries().first?.reason, "unexpected HTTP status 400")
        XCTAssertEqual(
            fixture.logs.count(
                prefix: "Segments: The server refused 1 tracked events for good (unexpected HTTP status 400); set aside in "),
            1)
        XCTAssertEqual(fixture.client.statistics.uploadsSetAside, 1)
        let refusal = fixture.logs.all.first { $0.message.hasPrefix("Segments: The server refused 1 tracked events for good") }
        XCTAssertEqual(refusal?.level, .error, "SPEC §7: set aside with a Segments: error")

        // The queue is not wedged: a later event goes out, and its upload requests a check.
        try fixture.client.trackEvent(eventType: "after")
        fixture.settle()
        XCTAssertEqual(server.accepted.trackedEvents.last?.eventType, "after")
    }

    /// A crash in the middle of an append leaves a last line without its newline; the next
    /// append must start a line of its own, or its first entry joins the torn one and is lost.
    func testAnEntrySetAsideAfterATornLastLineIsKept() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = DeadLetterFile(directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"reason":"torn"#.utf8).write(to: file.fileURL)
        let event = TrackedEvent(customerIds: ["cookie": "c"], eventType: "bad", timestamp: 1_700_000_000, properties: [:])
        _ = try file.append([DeadLetterFile.Entry(reason: "refused", setAsideAt: 1_700_000_000, item: .event(event))])
        XCTAssertEqual(file.entries().map(\.reason), ["refused"])
        _ = try file.append([DeadLetterFile.Entry(reason: "again", setAsideAt: 1_700_000_001, item: .event(event))])
        XCTAssertEqual(file.entries().map(\.reason), ["refused", "again"])
        XCTAssertFalse(try String(contentsOf: file.fileURL, encoding: .utf8).contains("\n\n"), "no empty lines")
    }

    /// The documented line: `item` holds the event (or customer update) in its wire form under
    /// `event` (or `customer`), for a tool to read or send again.
    func testADeadLetterLineHoldsTheUploadInItsWireForm() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = DeadLetterFile(directory: directory)
        let event = TrackedEvent(customerIds: ["cookie": "c"], eventType: "bad", timestamp: 1_700_000_000, properties: ["n": .number(1)])
        let update = CustomerUpdate(customerIds: ["cookie": "c", "registered": "r"], properties: [:])
        _ = try file.append([
            DeadLetterFile.Entry(reason: "refused", setAsideAt: 1_700_000_000, item: .event(event)),
            DeadLetterFile.Entry(reason: "refused", setAsideAt: 1_700_000_001, item: .customer(update)),
        ])
        let lines = try String(contentsOf: file.fileURL, encoding: .utf8).split(separator: "\n")
        let items = try lines.map { line in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try XCTUnwrap(object["item"] as? [String: Any])
        }
        XCTAssertEqual((items.first?["event"] as? [String: Any])?["event_type"] as? String, "bad", "\(lines)")
        XCTAssertEqual(((items.last?["customer"] as? [String: Any])?["customer_ids"] as? [String: String])?["registered"], "r", "\(lines)")
        XCTAssertEqual(file.entries().map(\.item), [.event(event), .customer(update)], "the lines read back")
    }

    /// Lines written before the wire form (`{"event": {"_0": {...}}}`) still read.
    func testADeadLetterLineOfAnEarlierVersionReads() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = DeadLetterFile(directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let line = #"{"reason":"old","setAsideAt":1,"item":{"event":{"_0":{"customer_ids":{"cookie":"c"},"event_type":"old","timestamp":1,"properties":{}}}}}"#
        try Data((line + "\n").utf8).write(to: file.fileURL)
        XCTAssertEqual(file.entries().map { eventType(of: $0.item) }, ["old"])
    }

    /// One refused event whose properties JSON cannot encode (nested beyond the encoder's limit)
    /// must not cost the others of the same set-aside their lines.
    func testAnUnencodableEntryDoesNotCostTheOthersTheirLines() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = DeadLetterFile(directory: directory)
        var deep: JSONValue = .null
        for _ in 0..<520 { deep = .array([deep]) }
        let entries = ["a", "deep", "b"].map { type in
            DeadLetterFile.Entry(reason: "refused", setAsideAt: 1_700_000_000, item: .event(TrackedEvent(
                customerIds: ["cookie": "c"], eventType: type, timestamp: 1_700_000_000,
                properties: type == "deep" ? ["p": deep] : [:])))
        }
        let result = try file.append(entries)
        XCTAssertEqual(file.entries().map { eventType(of: $0.item) }, ["a", "b"], "the encodable entries were written")
        XCTAssertEqual(result.unencodable.map(\.index), [1], "the entry left out is reported")
    }

    func testACommandRefusedInABatchAnswerIsSetAsideAndTheOthersAreNotSentAgain() throws {
        let directory = temporaryDirectory()
        let server = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
        let fixture = Fixture(stateDirectory: directory, transport: server)
        server.failNext(.trackEvents, with: .partialUpload(
            answered: 3, refused: [CommandRefusal(index: 1, reason: "invalid event_type")], then: nil))
        fixture.client.start()
        fixture.settle()
        fixture.client.flush()
        for type in ["a", "b", "c"] { try fixture.client.trackEvent(eventType: type) }
        fixture.settle()
        // The scripted answer stood for the server's: a, c accepted; b refused. Nothing is resent.
        for _ in 0..<5 { fixture.advance(.seconds(1)) }
        try fixture.client.trackEvent(eventType: "d")
        fixture.settle()
        XCTAssertEqual(server.trackedEvents.map(\.eventType), ["d"], "a, b and c were answered and not sent again")
        XCTAssertEqual(DeadLetterFile(directory: directory).entries().map { eventType(of: $0.item) }, ["b"])
        XCTAssertEqual(
            fixture.logs.count(prefix: "Segments: The server refused 1 tracked events for good (invalid event_type)"), 1)
    }

    /// A started fixture whose every upload fails with `error`, three events tracked and 20 minutes
    /// of retry time run out.
    private func uploadsFailing(with error: SegmentsError, stateDirectory: URL? = nil) throws -> Fixture {
        let fixture = Fixture(stateDirectory: stateDirectory)
        fixture.transport.failNext(.trackEvents, with: error, count: 1_000)
        fixture.client.start()
        fixture.settle()
        for type in ["a", "b", "c"] { try fixture.client.trackEvent(eventType: type) }
        fixture.settle()
        for _ in 0..<20 { fixture.advance(.seconds(60)) }
        return fixture
    }

    /// Starts `fixture`'s client and tracks event "a", letting the engine take each step.
    private func startAndTrackOneEvent(_ fixture: Fixture) throws {
        fixture.client.start()
        fixture.settle()
        try fixture.client.trackEvent(eventType: "a")
        fixture.settle()
    }

    /// A configuration error can pass (a 404 while the server is deployed, a proxy's 403): a later
    /// fetch that the same server answers with success resumes uploads, with every event kept.
    /// They stayed stopped for the client's life.
    func testAFetchTheServerAnswersResumesUploadsStoppedByAConfigurationError() throws {
        for error: SegmentsError in [.notFound, .unauthorized(status: 403)] {
            let fixture = Fixture()
            fixture.transport.defaultResponse = response([.discovery: [1]])
            fixture.transport.failNext(.trackEvents, with: error, count: 1)
            fixture.client.start()
            fixture.settle()
            for type in ["a", "b"] { try fixture.client.trackEvent(eventType: type) }
            fixture.settle()
            fixture.advance(.seconds(50))  // under the longest backoff, after which an upload tries again
            XCTAssertEqual(fixture.transport.trackedEvents.count, 0, "\(error): uploads stopped")
            XCTAssertEqual(fixture.client.statistics.uploadFailures, 1, "\(error)")
            _ = fixture.register(.discovery, firstLoad: true, tag: "d")
            fixture.advance(.seconds(5))  // the registration's check: its fetch succeeds
            XCTAssertEqual(fixture.recorder.count(tag: "d"), 1, "\(error): the fetch succeeded")
            XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a", "b"], "\(error): resumed before the retry was due")
            XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads resume"), 1, "\(error): \(fixture.logs.messages)")
        }
    }

    /// An app that only tracks never fetches, so a fetch could not resume its uploads: after a
    /// proxy's passing 403 they stayed stopped, and its events in memory, for the process's life.
    /// One upload tries again after the policy's longest backoff.
    func testUploadsStoppedByAConfigurationErrorTryAgainAfterTheLongestBackoffWithoutAFetch() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.trackEvents, with: .unauthorized(status: 403), count: 1)
        fixture.client.start()
        fixture.settle()
        for type in ["a", "b"] { try fixture.client.trackEvent(eventType: type) }
        fixture.settle()
        fixture.advance(.seconds(59))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0, "not before the longest backoff")
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a", "b"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads stopped: not authorized (HTTP 403)"), 1)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads resume: the server accepted a retried upload"), 1,
                       "\(fixture.logs.messages)")
    }

    /// A key that stays wrong is retried after the longest backoff, then at doubling intervals
    /// (up to an hour: every install of an app shipped with a wrong token sends a 401 that often,
    /// not every minute for ever), with no further error line, and the engine rests in between.
    func testAWrongKeyIsRetriedAtDoublingIntervalsWithOneErrorLine() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.trackEvents, with: .unauthorized(status: 401), count: 1_000)
        try startAndTrackOneEvent(fixture)
        var failures: [Int] = []
        for _ in 0..<32 {
            fixture.advance(.seconds(30))
            failures.append(fixture.client.statistics.uploadFailures)
        }
        // Retries at 60, 180, 420 and 900 s (the backoff's 60 s, then 120, 240, 480).
        XCTAssertEqual(failures.firstIndex(of: 2), 1)
        XCTAssertEqual(failures.firstIndex(of: 3), 5)
        XCTAssertEqual(failures.firstIndex(of: 4), 13)
        XCTAssertEqual(failures.firstIndex(of: 5), 29)
        XCTAssertEqual(failures.last, 5)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads stopped: not authorized (HTTP 401)"), 1)
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0)
        let before = fixture.clock.sleepsAlreadyDue
        Thread.sleep(forTimeInterval: 0.05)
        fixture.settle()
        XCTAssertEqual(fixture.clock.sleepsAlreadyDue - before, 0, "the engine rests until the next retry")
    }

    /// A retry that meets a passing failure (a timeout) is still under way: when the server then
    /// takes the upload, the resume is logged (it was not: the retry ended at the timeout).
    func testARetryOfStoppedUploadsThatTimesOutFirstLogsTheResumeWhenAccepted() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.trackEvents, with: .unauthorized(status: 403), count: 1)
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 1)
        try startAndTrackOneEvent(fixture)
        fixture.advance(.seconds(60))  // the retry: a timeout, retried after the backoff's 1 s
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads resume"), 0)
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads resume: the server accepted a retried upload"), 1,
                       "\(fixture.logs.messages)")
    }

    /// The policy's jitter spreads a retry above its wait, never below: the first comes after the
    /// longest backoff, as documented, and within half of it more.
    func testAJitteredRetryOfStoppedUploadsNeverComesBeforeTheLongestBackoff() throws {
        let fixture = Fixture { $0.uploadRetry.jitter = 0.5 }
        fixture.transport.failNext(.trackEvents, with: .unauthorized(status: 403), count: 1)
        try startAndTrackOneEvent(fixture)
        fixture.advance(.seconds(59))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0, "not before the longest backoff")
        fixture.advance(.seconds(31))
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a"], "within 1.5 × the longest backoff")
    }

    /// The wait doubles up to an hour, not beyond.
    func testTheWaitBetweenRetriesOfStoppedUploadsStopsGrowingAtAnHour() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.trackEvents, with: .notFound, count: 1_000)
        try startAndTrackOneEvent(fixture)
        // 60 + 120 + … + 1,920 s = 3,780 s to the sixth retry; then one an hour.
        for _ in 0..<(3_780 + 2 * 3_600) / 60 { fixture.advance(.seconds(60)) }
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 1 + 6 + 2)
    }

    /// An error of the upload endpoint alone (a key without tracking rights) comes back after
    /// each resume: uploads resume as often as the retries go, whose wait grows, not after every
    /// check.
    func testUploadsResumeLessOftenWhenTheErrorComesBack() throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1]])
        fixture.transport.failNext(.trackEvents, with: .notFound, count: 2)
        try startAndTrackOneEvent(fixture)
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 1, "the upload: 404, stopped")
        _ = fixture.register(.discovery, firstLoad: true, tag: "d")
        fixture.advance(.seconds(5))  // a fetch succeeds: resumed, and the upload fails again
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 2)
        _ = fixture.register(.content, firstLoad: true, tag: "c")
        fixture.advance(.seconds(5))  // another fetch within the minute: no resume
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads resume"), 1)
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 2, "an upload after every check")
        // Stopped again after the fetch's resume, they wait twice the longest backoff (the retry
        // refused alike), and fetches within it resume nothing; then the retry goes out.
        fixture.advance(.seconds(60))
        XCTAssertEqual(fixture.transport.trackedEvents.count, 0, "no retry a minute after")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads stopped: not found"), 1, "one error line for the error that came back")
        fixture.advance(.seconds(60))
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads resume"), 2)
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a"])
    }

    func testAWrongKeyStopsUploadsWithOneErrorLineAndKeepsEveryEvent() throws {
        let directory = temporaryDirectory()
        do {
            let fixture = try uploadsFailing(with: .unauthorized(status: 401), stateDirectory: directory)
            XCTAssertEqual(fixture.client.statistics.uploadFailures, 5, "retried after 60, 180, 420 and 900 s with the same key, not more")
            XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads stopped: not authorized (HTTP 401)"), 1)
            fixture.client.stop()
        }
        // The next start (a new configuration) finds every event.
        let restarted = Fixture(stateDirectory: directory)
        restarted.client.start()
        restarted.settle()
        XCTAssertEqual(restarted.transport.trackedEvents.map(\.eventType), ["a", "b", "c"])
    }

    /// A transient failure set a retry time; the retry met a wrong key and stopped uploads. The
    /// retry time, passed, must not stay the engine's next deadline: it turned without rest.
    func testUploadsStoppedAfterARetryLeaveTheEngineAtRest() throws {
        let fixture = Fixture()
        fixture.transport.failNext(.trackEvents, with: .timeout)
        fixture.transport.failNext(.trackEvents, with: .unauthorized(status: 401), count: 1_000)
        try startAndTrackOneEvent(fixture)
        for _ in 0..<5 { fixture.advance(.seconds(60)) }
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads stopped: not authorized (HTTP 401)"), 1)
        let before = fixture.clock.sleepsAlreadyDue
        // The clock stands still: an engine at rest asks for no sleep at all meanwhile. (The wait
        // only gives a turning engine time to show itself; a resting one passes whatever it is.)
        Thread.sleep(forTimeInterval: 0.05)
        fixture.settle()
        XCTAssertEqual(fixture.clock.sleepsAlreadyDue - before, 0, "sleeps asked for a passed deadline")
    }

    func testARedirectStopsUploadsWithOneErrorLineAndKeepsEveryEvent() throws {
        let fixture = try uploadsFailing(with: .unexpectedStatus(301))
        XCTAssertEqual(fixture.client.statistics.uploadFailures, 5, "sent again to the address that redirects at doubling intervals, not more")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Uploads stopped: redirected (HTTP 301)"), 1)
        XCTAssertEqual(fixture.client.statistics.uploadsSetAside, 0, "nothing set aside")
    }

    /// SPEC §7: 408, 429 and 5xx are transient, retried with backoff honouring `Retry-After`.
    func testRetryAfterIsHonouredWhenLongerThanTheBackoff() throws {
        for error in [
            SegmentsError.rateLimited(retryAfter: .seconds(30)), .serverError(status: 503, retryAfter: .seconds(30)),
            .requestTimeout(retryAfter: .seconds(30)),
        ] {
            let fixture = Fixture()
            fixture.transport.failNext(.trackEvents, with: error)
            fixture.client.start()
            try fixture.client.trackEvent(eventType: "purchase")
            fixture.settle()
            fixture.advance(.seconds(29))
            XCTAssertEqual(fixture.transport.trackedEvents.count, 0, "\(error): the backoff (1 s) is shorter than Retry-After")
            fixture.advance(.seconds(1))
            XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["purchase"], "\(error)")
        }
    }

    /// A server's `Retry-After` is the earliest retry, not the retry time: clients that got the
    /// same answer together spread their retries over the policy's jitter above it, as they
    /// spread a backoff, instead of all coming back in the same millisecond.
    func testRetryAfterIsSpreadByTheJitterAboveTheServersDelay() throws {
        let policy = RetryPolicy(initial: .seconds(1), maximum: .seconds(60), jitter: 0.5)
        var random = SplitMix64(seed: 11)
        var delays: [Duration] = []
        for _ in 0..<100 {
            var queue = UploadQueue([.event(TrackedEvent(customerIds: ["cookie": "c"], eventType: "e", timestamp: 0, properties: [:]))])
            _ = try XCTUnwrap(queue.next(maxBatchSize: 1, maxUploads: 1))
            let resolution = queue.resolve(
                UploadOutcome(accepted: 0, error: .serverError(status: 503, retryAfter: .seconds(10))), policy: policy, random: &random)
            delays.append(try XCTUnwrap(resolution.retryDelay))
        }
        XCTAssertTrue(delays.allSatisfy { $0 >= .seconds(10) && $0 <= .seconds(15) }, "\(delays.min()!)...\(delays.max()!)")
        XCTAssertGreaterThan(Set(delays).count, 50, "every client would retry at the same moment: \(Set(delays))")
    }

    func testTheBackoffIsJitteredWithinItsBounds() {
        let policy = RetryPolicy(initial: .seconds(1), maximum: .seconds(60), jitter: 0.5)
        var random = SplitMix64(seed: 7)
        let delays = (0..<200).map { _ in policy.delay(afterFailures: 3, random: &random) }
        XCTAssertTrue(delays.allSatisfy { $0 >= .seconds(2) && $0 <= .seconds(4) }, "\(delays.min()!)...\(delays.max()!)")
        XCTAssertGreaterThan(Set(delays).count, 100, "delays are spread, not one value")
        var none = SplitMix64(seed: 7)
        XCTAssertEqual(RetryPolicy(initial: .seconds(1), maximum: .seconds(60), jitter: 0).delay(afterFailures: 3, random: &none), .seconds(4))
    }

    func testTransientAndPermanentFailuresAreToldApart() {
        for transient: SegmentsError in [
            .timeout, .requestTimeout(), .connectionFailed("x"), .rateLimited(), .serverError(status: 503), .unexpectedStatus(408),
        ] {
            XCTAssertTrue(transient.isTransient, "\(transient)")
            XCTAssertEqual(UploadQueue.kind(of: transient), .transient, "\(transient)")
        }
        XCTAssertEqual(UploadQueue.kind(of: .malformedResponse("captive portal")), .transient)
        for refusal: SegmentsError in [.unexpectedStatus(400), .unexpectedStatus(413), .unexpectedStatus(422)] {
            XCTAssertFalse(refusal.isTransient)
            XCTAssertEqual(UploadQueue.kind(of: refusal), .refusal, "\(refusal)")
        }
        for configuration: SegmentsError in [.unauthorized(status: 401), .unauthorized(status: 403), .notFound, .invalidCredentials("x")] {
            XCTAssertEqual(UploadQueue.kind(of: configuration), .configuration, "\(configuration)")
        }
    }

    func testARefusedCustomerUpdateIsSetAsideAndTheEventsAfterItGoOut() throws {
        let directory = temporaryDirectory()
        let fixture = Fixture(stateDirectory: directory)
        fixture.transport.failNext(.identifyCustomer, with: .unexpectedStatus(422))
        fixture.client.start()
        fixture.settle()
        try fixture.client.identifyCustomer(properties: ["plan": .string("pro")])
        try fixture.client.trackEvent(eventType: "after")
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["after"])
        XCTAssertEqual(DeadLetterFile(directory: directory).entries().count, 1)
        XCTAssertEqual(
            fixture.logs.count(prefix: "Segments: The server refused 1 customer updates for good (unexpected HTTP status 422); set aside in "), 1)
    }
}

private func eventType(of item: UploadItem) -> String? {
    if case .event(let event) = item { return event.eventType }
    return nil
}
