import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// Concurrency stress. These also run under `swift test --sanitize=thread` in CI.
/// `RS_STRESS_ITERATIONS` scales them (CI's TSan run uses fewer).
final class StressTests: XCTestCase {
    private var iterations: Int {
        ProcessInfo.processInfo.environment["RS_STRESS_ITERATIONS"].flatMap(Int.init) ?? 3_000
    }

    /// The security property, repeated: a customer switch (anonymize or a new hard id), with or
    /// without new events for the new customer, racing an in-flight fetch, never lets the previous
    /// customer's segments reach a callback. Half the switches are taken by the engine before the
    /// held fetch returns, which with a zero debounce window clears the screen first (`[]`, SPEC §3
    /// trigger 5): an empty list carries no customer's segments, so it is counted apart.
    func testCustomerSwitchRacingAnInFlightFetchNeverDeliversThePreviousCustomersSegments() throws {
        let fixture = Fixture { $0.debounce = .zero; $0.maxWait = .zero }
        let transport = fixture.transport
        // Each fetch is numbered; its segments carry the number, so a delivery names the fetch it
        // came from. Fetches numbered up to `staleUpTo` were made for a previous customer.
        let fetches = Atomic<Int>(0)
        let staleUpTo = Atomic<Int>(0)
        transport.setResponder { cookie in
            let number = fetches.add(1, ordering: .acquiringAndReleasing).newValue
            let segment = Segment(id: "\(number)", segmentationId: cookie)
            return SegmentsResponse(categories: [.discovery: [segment], .content: [segment]])
        }
        let stale = Atomic<Int>(0)
        let delivered = Atomic<Int>(0)
        let cleared = Atomic<Int>(0)
        let client = fixture.client
        for category in [SegmentCategory.discovery, .content] {
            for _ in 0..<4 {
                client.segmentation.addCallback(
                    callbackData: SegmentCallbackData(category: category, isIncludeFirstLoad: true) { segments in
                        guard let first = segments.first else {
                            cleared.add(1, ordering: .relaxed)
                            return
                        }
                        delivered.add(1, ordering: .relaxed)
                        if let number = Int(first.id), number > staleUpTo.load(ordering: .acquiring) { return }
                        stale.add(1, ordering: .relaxed)
                    })
            }
        }
        client.start()
        fixture.settle()
        var generator = SplitMix64(seed: 42)
        var switchesTakenWhileHeld = 0
        for iteration in 0..<iterations {
            transport.holdFetches()
            try client.trackEvent(eventType: "view")
            waitUntil { transport.heldFetchCount == 1 }
            // Everything fetched so far belongs to the customer we are switching away from.
            staleUpTo.store(transport.fetchCount, ordering: .releasing)
            if generator.next() % 2 == 0 {
                client.anonymize()
            } else {
                try client.identifyCustomer(customerIds: ["registered": "user-\(iteration)"])
            }
            if generator.next() % 2 == 0 {
                try client.trackEvent(eventType: "for_new_customer")
            }
            if generator.next() % 2 == 0 {
                // The clear itself, not the request's log line: the released fetch's completion
                // could otherwise reach the engine before the turn's timers run.
                let clearedBefore = cleared.load(ordering: .relaxed)
                waitUntil { cleared.load(ordering: .relaxed) >= clearedBefore + 8 }
                switchesTakenWhileHeld += 1
            }
            transport.releaseHeldFetches()
            // Let the new customer's check deliver before the next switch, so that any delivery
            // of a fetch numbered <= staleUpTo is a real leak, not a race of this test.
            fixture.settle()
        }
        XCTAssertEqual(stale.load(ordering: .relaxed), 0, "no callback received a previous customer's segments")
        XCTAssertGreaterThanOrEqual(delivered.load(ordering: .relaxed), 8 * iterations, "each new customer's data was delivered")
        XCTAssertGreaterThanOrEqual(
            cleared.load(ordering: .relaxed), 8 * switchesTakenWhileHeld, "a switch taken while the fetch was held cleared the screen")
        XCTAssertEqual(client.statistics.staleResultsDropped, iterations)
    }

    /// Many threads tracking, identifying, anonymizing, adding and removing callbacks and pulling,
    /// on the real clock. Checks: no event lost, every delivery is well-formed, and the engine
    /// settles with the final customer's data.
    func testManyThreadsTrackingIdentifyingAndRegisteringConcurrently() throws {
        let fixture = Fixture { $0.debounce = .zero; $0.maxWait = .zero; $0.clock = SystemClock(); $0.ingestCapacity = 256 }
        let transport = fixture.transport
        transport.setResponder { cookie in
            SegmentsResponse(categories: [.discovery: [Segment(id: cookie, segmentationId: "d")]])
        }
        let client = fixture.client
        let malformed = Atomic<Int>(0)
        client.start()
        let perThread = max(200, iterations / 3)
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            var generator = SplitMix64(seed: UInt64(worker))
            for step in 0..<perThread {
                switch worker {
                case 0, 1:
                    try? client.trackEvent(eventType: "w\(worker)", properties: ["step": .number(Double(step))])
                case 2:
                    if step % 20 == 0 {
                        client.anonymize()
                    } else if step % 10 == 0 {
                        try? client.identifyCustomer(customerIds: ["registered": "u\(step)"])
                    } else {
                        try? client.trackEvent(eventType: "w2")
                    }
                case 3, 4:
                    let callback = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: generator.next() % 2 == 0) { segments in
                        // `[]` is a switch's clear (SPEC §3 trigger 5); any list with data is the mock's one segment.
                        guard !segments.isEmpty else { return }
                        if segments.count != 1 || segments[0].segmentationId != "d" { malformed.add(1, ordering: .relaxed) }
                    }
                    client.segmentation.addCallback(callbackData: callback)
                    if generator.next() % 4 != 0 { client.segmentation.removeCallback(callbackData: callback) }
                default:
                    client.getSegments(category: .discovery, force: generator.next() % 8 == 0) { _ in }
                }
            }
        }
        fixture.settle()
        XCTAssertEqual(malformed.load(ordering: .relaxed), 0)
        let expectedEvents = 2 * perThread + (0..<perThread).filter { $0 % 10 != 0 }.count
        XCTAssertEqual(transport.trackedEvents.count, expectedEvents, "no tracked event was lost")

        let final = Locked<[String]>([])
        client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { segments in
                final.withLock { $0.append(contentsOf: segments.map(\.id)) }
            })
        fixture.settle()
        XCTAssertEqual(final.withLock { $0 }, [fixture.cookie])
    }

    /// Registration churn while deliveries run: every delivery completes, nothing crashes, and
    /// callbacks that stay registered are all notified.
    func testRegistrationChurnDuringFanOutNeverCorruptsADelivery() throws {
        let fixture = Fixture { $0.debounce = .zero; $0.maxWait = .zero; $0.clock = SystemClock() }
        let client = fixture.client
        let counter = Atomic<Int>(0)
        fixture.transport.setResponder { _ in
            SegmentsResponse(categories: [.content: [segment(Int(counter.add(1, ordering: .relaxed).newValue))]])
        }
        let stable = Atomic<Int>(0)
        for _ in 0..<200 {
            client.segmentation.addCallback(
                callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: false) { _ in stable.add(1, ordering: .relaxed) })
        }
        client.start()
        fixture.settle()
        let rounds = max(20, iterations / 100)
        let churnDone = Atomic<Bool>(false)
        DispatchQueue.global().async {
            while !churnDone.load(ordering: .acquiring) {
                let callback = SegmentCallbackData(category: .content, isIncludeFirstLoad: true) { _ in }
                client.segmentation.addCallback(callbackData: callback)
                client.segmentation.removeCallback(callbackData: callback)
            }
        }
        for round in 0..<rounds {
            try client.trackEvent(eventType: "change")
            // Every fetch returns new data, and every registration requests a check: with churn
            // running the engine is never idle, so wait for the deliveries themselves.
            waitUntil { stable.load(ordering: .relaxed) >= 200 * (round + 1) }
        }
        churnDone.store(true, ordering: .releasing)
        fixture.settle()
        XCTAssertEqual(stable.load(ordering: .relaxed) % 200, 0, "every delivery reached all 200 stable callbacks")
        XCTAssertGreaterThanOrEqual(stable.load(ordering: .relaxed), 200 * rounds)
    }

    /// Answers each customer's fetch with a discovery segment numbered for that customer (so equal
    /// data means the same customer) and registers a discovery callback with first load; returns
    /// what the callback was given, in order.
    private static func numberingCustomers(of fixture: Fixture) -> Locked<[[Segment]]> {
        let numbers = Locked<[String: Int]>([:])
        fixture.transport.setResponder { cookie in
            let number = numbers.withLock { numbers in
                if let known = numbers[cookie] { return known }
                numbers[cookie] = numbers.count
                return numbers.count - 1
            }
            return response([.discovery: [number]])
        }
        let received = Locked<[[Segment]]>([])
        fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { segments in
            received.withLock { $0.append(segments) }
        })
        return received
    }

    /// `anonymize()` publishes the new customer, then queues the switch for the engine. A check the
    /// engine started in between was for the new customer already; its data must not be delivered
    /// a second time when the engine then takes the switch (before, it reset the last known state
    /// it had just stored, and the next check notified every callback again with the same data).
    func testAnonymizeNeverMakesTheEngineDeliverTheSameCustomersDataTwice() throws {
        let fixture = Fixture { $0.clock = SystemClock(); $0.debounce = .zero; $0.maxWait = .zero }
        let received = Self.numberingCustomers(of: fixture)
        fixture.client.segmentation.addCallbacks((0..<5_000).map { _ in
            SegmentCallbackData(category: .content, isIncludeFirstLoad: false) { _ in }
        })
        fixture.client.start()
        for round in 0..<max(200, iterations / 5) {
            // A pending first load makes `anonymize()` walk every registration between its two
            // halves; the wait before it moves that window across the check the upload triggers.
            fixture.client.segmentation.addCallback(callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: true) { _ in })
            try fixture.client.trackEvent(eventType: "e")
            let start = DispatchTime.now().uptimeNanoseconds
            while DispatchTime.now().uptimeNanoseconds - start < UInt64(round % 50) * 3_000 {}
            fixture.client.anonymize()
            fixture.settle()
        }
        let deliveries = received.withLock { $0 }
        let repeats = zip(deliveries, deliveries.dropFirst()).filter { $0 == $1 }.count
        XCTAssertEqual(repeats, 0, "no customer's data was delivered twice in a row (\(deliveries.count) deliveries)")
    }

    /// The same rule with the window held open: `anonymize()` is stopped between publishing the
    /// new customer and queueing the switch, a check for the new customer runs and delivers in
    /// between, and only then does the engine take the switch. The switch's own check must not
    /// deliver that customer's data a second time.
    func testACheckRunBetweenAnonymizesTwoHalvesIsNotDeliveredAgainAfterIt() throws {
        let gate = HeldHook(armed: false)
        let fixture = Fixture {
            $0.debounce = .zero
            $0.maxWait = .zero
            $0.identityPublishedForTesting = { gate.hold() }
        }
        let received = Self.numberingCustomers(of: fixture)
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(received.withLock { $0.count }, 1, "the first customer's first load")

        gate.arm()
        let client = fixture.client
        let anonymized = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            client.anonymize()
            anonymized.signal()
        }
        XCTAssertEqual(gate.waitUntilHeld(timeout: .now() + 10), .success, "anonymize() published the new customer")
        // A check in the window: an upload's (trigger 4), for the customer now published.
        try fixture.client.trackEvent(eventType: "e")
        fixture.settle()
        XCTAssertEqual(received.withLock { $0.count }, 2, "the new customer's data, delivered in the window")
        gate.release()
        XCTAssertEqual(anonymized.wait(timeout: .now() + 10), .success)
        fixture.settle()

        let deliveries = received.withLock { $0 }
        XCTAssertEqual(deliveries.count, 2, "the switch's own check delivered the same customer's data again: \(deliveries)")
        XCTAssertNotEqual(deliveries.first, deliveries.last)
    }

    /// "Nothing is lost" across `stop()`: every event whose `trackEvent` returned without an error
    /// was uploaded, or reported by a `Segments:` line (tracked while `stop()` ran, or unsent at
    /// stop), however the producers race the stop.
    func testEveryEventTrackedWhileStopRunsIsUploadedOrReported() throws {
        let rounds = max(20, iterations / 50)
        for round in 0..<rounds {
            let fixture = Fixture { $0.clock = SystemClock(); $0.ingestCapacity = 64 }
            fixture.client.start()
            let accepted = Atomic<Int>(0)
            // Threads of their own: `concurrentPerform` on two cores could run both producers and
            // never the stop.
            let producersDone = DispatchGroup()
            for worker in 0..<2 {
                producersDone.enter()
                Thread.detachNewThread {
                    while (try? fixture.client.trackEvent(eventType: "e\(worker)")) != nil {
                        accepted.add(1, ordering: .relaxed)
                    }
                    producersDone.leave()
                }
            }
            usleep(UInt32(round % 5) * 200)
            fixture.client.stop()
            producersDone.wait()
            let reported = fixture.logs.messages.compactMap { line -> Int? in
                for suffix in [" events or customer changes tracked while stop() ran were dropped",
                               " unsent uploads are lost at stop: configure stateDirectory to keep them"]
                where line.hasPrefix("Segments: ") && line.hasSuffix(suffix) {
                    return Int(line.dropFirst("Segments: ".count).dropLast(suffix.count))
                }
                return nil
            }.reduce(0, +)
            let uploaded = fixture.transport.trackedEvents.count
            XCTAssertEqual(uploaded + reported, accepted.load(ordering: .relaxed), "round \(round): \(uploaded) uploaded, \(reported) reported")
            if uploaded + reported != accepted.load(ordering: .relaxed) { break }
        }
    }

    /// `getSegments` checks that the client runs, then posts to the engine: a `stop()` that runs
    /// to the end in between used to leave the call waiting forever. Every call must end.
    func testGetSegmentsRacingStopAlwaysEnds() throws {
        let rounds = max(50, iterations / 10)
        let answered = Atomic<Int>(0)
        let calls = Atomic<Int>(0)
        for _ in 0..<rounds {
            let fixture = Fixture { $0.clock = SystemClock() }
            fixture.client.start()
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                if worker == 0 {
                    for _ in 0..<4 {
                        calls.add(1, ordering: .relaxed)
                        fixture.client.getSegments(category: .discovery, force: true) { _ in
                            answered.add(1, ordering: .relaxed)
                        }
                    }
                } else {
                    fixture.client.stop()
                }
            }
        }
        waitUntil(timeout: 30) { answered.load(ordering: .relaxed) == calls.load(ordering: .relaxed) }
        XCTAssertEqual(answered.load(ordering: .relaxed), calls.load(ordering: .relaxed), "every getSegments call was answered")
    }
}

/// `waitUntilIdle` is what tests and the harness trust to mean "everything requested has been done".
final class IdleDetectionStressTests: XCTestCase {
    func testWaitUntilIdleNeverReturnsBeforeEveryUploadHasFinished() throws {
        let fixture = Fixture { $0.clock = SystemClock(); $0.maxUploadBatchSize = 50 }
        fixture.client.start()
        var expected = 0
        for round in 0..<200 {
            let count = 100 + round % 7 * 31
            for _ in 0..<count { try fixture.client.trackEvent(eventType: "e") }
            expected += count
            XCTAssertTrue(fixture.client.waitUntilIdle(timeout: .seconds(30)))
            XCTAssertEqual(fixture.transport.trackedEvents.count, expected, "round \(round)")
            if fixture.transport.trackedEvents.count != expected { break }
        }
    }
}

/// The ring hands the app's values to the engine thread: what the app still holds must outlive
/// every copy the engine makes and releases, however the two threads interleave.
final class IngestLifetimeStressTests: XCTestCase {
    /// Regression: the ring's slot copy used to be retained after the slot was published (the
    /// optimizer moved the retain), so a consumer that uploaded and released an event quickly
    /// enough took a shared properties dictionary to a zero count while the app still held it.
    /// The window only opens in optimized builds; the release-built harness runs the same pattern
    /// (`tracking-storm`'s full-ring phase). Here it checks that every reference the engine took
    /// is given back, through thousands of ring-full waits.
    func testSharedPropertiesSurviveAFullRingAndEveryReferenceIsGivenBack() throws {
        let transport = CountingTransport()
        var configuration = SegmentsConfiguration(projectToken: "lifetime", transport: transport)
        configuration.debounce = .seconds(3600)
        configuration.ingestCapacity = 64
        configuration.logger.logLevel = .critical
        let client = SegmentsClient(configuration: configuration)
        client.start()
        let properties: [String: JSONValue] = ["sku": "A-1", "price": 9.99]
        let baseline = Self.retainCount(properties)
        let events = 200_000
        try Self.track(events, properties: properties, on: client)
        XCTAssertTrue(client.waitUntilIdle(timeout: .seconds(60)))
        XCTAssertEqual(transport.events.load(ordering: .relaxed), events, "every event reached the transport")
        XCTAssertGreaterThan(client.statistics.producerStalls, 0, "the ring was full at times (the path under test)")
        client.stop()
        // Upload tasks release their batch when they finish, just after reporting back. (Polled
        // inline: a closure capturing `properties` would hold a reference of its own.)
        let deadline = Date().addingTimeInterval(10)
        while Self.retainCount(properties) != baseline && Date() < deadline { usleep(1_000) }
        let final = Self.retainCount(properties)
        XCTAssertEqual(final, baseline, "the engine gave back every reference it took")
    }

    /// Tracks from a borrowed dictionary, as an app's producer closure does: the caller adds no
    /// reference of its own around each call, so the ring's copy is the only one in flight.
    @inline(never)
    private static func track(_ events: Int, properties: [String: JSONValue], on client: SegmentsClient) throws {
        for _ in 0..<events { try client.trackEvent(eventType: "view_item", properties: properties) }
    }

    @inline(never)
    private static func retainCount(_ dictionary: [String: JSONValue]) -> UInt {
        _getRetainCount(unsafeBitCast(dictionary, to: AnyObject.self))
    }
}

/// Accepts everything and only counts events, so the test's values are held by nobody else.
private final class CountingTransport: SegmentsTransport {
    let events = Atomic<Int>(0)
    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        self.events.add(events.count, ordering: .relaxed)
    }
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError) {}
    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        SegmentsResponse(categories: [:])
    }
}
