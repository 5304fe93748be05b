import Atomics
import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting
import SegmentsMockServer

/// `customer-switch`: identify/anonymize churn while tracking, every delivery checked against the
/// customer it was meant for.
public struct CustomerSwitchScenario: Scenario {
    public init() {}
    public let name = "customer-switch"
    public let honouredOptions: Set<BenchOptionName> = [.duration, .switchRate, .debounce, .transport, .seed, .rate]
    public let needsMockIntrospection: String? = "the mock backend's scripted segment changes per customer and its count of accepted events"
    public let simulates = "identify/anonymize churn (--switch-rate per second) while producers track events and callbacks listen (max-wait at twice the debounce, so that each customer's segments are delivered before the next switch; every fetch answered in 30 ms, so that switches land while one is in flight), with a pull before and after each anonymize()"
    public let measures = "stale deliveries (segments of a previous customer reaching a callback more than 10 ms after the switch returned; must be 0), stale pulls (getSegments right after anonymize() answering another customer's segments; must be 0), repeated deliveries (the same segments twice between switches; must be 0), deliveries in the run's second half (must be some), checks dropped by generation, server change → callback latency"

    /// How long after a switch returned a delivery of the previous customer's data counts as stale.
    /// The engine checks the generation right before each callback, so a callback whose check
    /// passed an instant before the switch may still start just after it; on a loaded 2-core
    /// machine the delivery thread can be descheduled in between for a few milliseconds. (The
    /// exact property is tested deterministically in StressTests.)
    static let staleGraceNanoseconds: UInt64 = 10_000_000

    /// How long the mock takes to answer a fetch: three times the grace.
    static let fetchLatency = Duration.milliseconds(30)

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let seconds = options.duration(default: 9)
        let switchRate = options.switchRate ?? 20
        let debounce = options.debounce(default: 0.02)
        // Every tracked event restarts the debounce, so under the producers' steady load checks
        // come at max-wait: two debounces, so that customers switched to get their segments
        // delivered during the run, where the stale and unmarked counts look at them.
        // Every fetch takes `fetchLatency`, longer than the grace: a switch made while one is in
        // flight would see its answer, fetched for the customer left, delivered after the grace
        // if the engine let it through.
        let engine = try EngineUnderTest.make(
            transport: options.transport, debounce: debounce, maxWait: debounce * 2,
            faults: FaultPlan(profiles: [.fetchSegments: FaultProfile(latency: .fixed(Self.fetchLatency))]),
            markResponsesWithCookie: true, engine: options.engine)
        defer { engine.shutdown() }
        let backend = engine.backend
        let project = EngineUnderTest.project.token
        // Every customer's segments name the customer: a marker segment per category.
        let switchedAwayAt = LockedBox<[String: UInt64]>([:])
        let stale = ManagedAtomic<Int>(0)
        let deliveries = ManagedAtomic<Int>(0)
        // Deliveries of a customer the run switched to (not the first one) in the second half of
        // the run, which starts at `secondHalf` (monotonic ns; set as the load starts).
        let laterDeliveries = ManagedAtomic<Int>(0)
        let secondHalf = ManagedAtomic<UInt64>(.max)
        let firstCookie = engine.cookie
        let unmarked = ManagedAtomic<Int>(0)
        let cleared = ManagedAtomic<Int>(0)
        // A delivery's data may repeat the one before only across a switch (SPEC §4: callbacks
        // hear changes, and first loads). The switcher raises `switchEpoch` before and after each
        // identify or anonymize (odd: a switch under way) and notes when the switch returned. A
        // delivery is settled when it came in an even epoch, more than the stale grace after the
        // last switch returned: a callback whose generation check passed just before a switch may
        // still start just after it (see `staleGraceNanoseconds`), and the new customer's check
        // then delivers the same segments again, rightly. Only settled deliveries are compared.
        let switchEpoch = ManagedAtomic<Int>(0)
        let lastSwitchReturned = ManagedAtomic<UInt64>(0)
        let repeated = ManagedAtomic<Int>(0)
        let endToEnd = LockedBox(LatencyRecorder())
        for category in [SegmentCategory.discovery, .content, .merchandising] {
            for _ in 0..<5 {
                // The change versions this callback has already been timed for.
                let timed = LockedBox<Set<UInt64>>([])
                let previous = LockedBox<(epoch: Int, segments: [Segment])?>(nil)  // its last settled delivery
                engine.engine.addCallback(
                    callbackData: SegmentCallbackData(category: category, isIncludeFirstLoad: true) { segments in
                        let now = monotonicNanoseconds()
                        deliveries.wrappingIncrement(ordering: .relaxed)
                        let epoch = switchEpoch.load(ordering: .acquiring)
                        let settled = epoch % 2 == 0 && now > lastSwitchReturned.load(ordering: .relaxed) + Self.staleGraceNanoseconds
                        let again = previous.withLock { previous in
                            defer { previous = settled ? (epoch, segments) : nil }
                            return settled && previous.map { $0.epoch == epoch && $0.segments == segments } ?? false
                        }
                        if again { repeated.wrappingIncrement(ordering: .relaxed) }
                        // An empty list clears what the callback shows: the engine's answer to a
                        // switch whose previous customer's check is still in flight a debounce
                        // later (every answer of the mock names its customer, so is never empty).
                        if segments.isEmpty {
                            cleared.wrappingIncrement(ordering: .relaxed)
                            return
                        }
                        guard let marker = segments.first(where: { $0.segmentationId == "customer" })?.id else {
                            unmarked.wrappingIncrement(ordering: .relaxed)
                            return
                        }
                        if marker != firstCookie, now >= secondHalf.load(ordering: .relaxed) {
                            laterDeliveries.wrappingIncrement(ordering: .relaxed)
                        }
                        if let away = switchedAwayAt.withLock({ $0[marker] }), now > away + Self.staleGraceNanoseconds {
                            stale.wrappingIncrement(ordering: .relaxed)
                        }
                        // Server change → callback: from the backend's stamp of the change this
                        // delivery carries (its segments, the marker aside, are that change's) to
                        // the first invocation of this callback with it. A delivery of older data,
                        // or a repeat of a change already timed, is not a sample.
                        if let change = backend.lastChange(forCookie: marker, category: category, projectToken: project),
                           change.changedAt <= now,
                           Set(segments.filter { $0.segmentationId != MeasuringTransport.markerSegmentationId }) == Set(change.segments),
                           timed.withLock({ $0.insert(change.version).inserted })
                        {
                            endToEnd.withLock { $0.record(now - change.changedAt) }
                        }
                    })
            }
        }
        engine.engine.start()
        let client = engine.engine
        // The new customer's membership changes on the server right after the switch: what the
        // end-to-end latency measures. (The marker naming the customer is added by the measuring
        // transport to every response, so it never races this.)
        @Sendable func script(_ cookie: String) {
            for category in [SegmentCategory.discovery, .content, .merchandising] {
                backend.setSegments(
                    FanoutProbe.payload(variant: cookie.hashValue & 0xFF), category: category, forCookie: cookie, projectToken: project)
            }
        }
        script(engine.cookie)

        // The customer a pull's answer was fetched for (the marker of its data), or nil when it
        // came back empty (a failed pull).
        @Sendable func pulledCustomer() -> String? {
            let answered = DispatchSemaphore(value: 0)
            let marker = LockedBox<String?>(nil)
            client.getSegments(category: .discovery, force: false) { segments in
                marker.withLock { $0 = segments.first { $0.segmentationId == MeasuringTransport.markerSegmentationId }?.id }
                answered.signal()
            }
            _ = answered.wait(timeout: .now() + 10)
            return marker.withLock { $0 }
        }
        let stalePulls = ManagedAtomic<Int>(0)
        let switchesDuringAFetch = ManagedAtomic<Int>(0)
        let pullsAnswered = ManagedAtomic<Int>(0)

        let running = ManagedAtomic<Bool>(true)
        let switches = ManagedAtomic<Int>(0)
        let switcherDone = DispatchSemaphore(value: 0)
        let seed = options.seed
        let switcher = Thread {
            var generator = SplitMix64(seed: seed)
            let interval = UInt32(max(1, 1_000_000 / switchRate))
            var number = 0
            while running.load(ordering: .relaxed) {
                // In slices, so that a slow --switch-rate does not keep the run going an interval
                // past its end.
                var slept: UInt32 = 0
                while slept < interval, running.load(ordering: .relaxed) {
                    let slice = min(50_000, interval - slept)
                    usleep(slice)
                    slept += slice
                }
                guard running.load(ordering: .relaxed) else { break }
                let previous = client.customerIds["cookie"] ?? ""
                // Runs a switch between the two raises of the epoch; returns when it returned.
                func switching(_ body: () -> Void) -> UInt64 {
                    switchEpoch.wrappingIncrement(ordering: .releasing)
                    body()
                    let returned = monotonicNanoseconds()
                    lastSwitchReturned.store(returned, ordering: .relaxed)
                    switchEpoch.wrappingIncrement(ordering: .releasing)
                    return returned
                }
                if generator.next() % 3 == 0 {
                    number += 1
                    _ = switching { try? client.identifyCustomer(customerIds: ["registered": "customer-\(number)"]) }
                    // Same cookie, new hard id: the server answers for the same cookie, so the
                    // marker stays valid; only anonymize makes the old cookie stale.
                } else {
                    // A pull before the switch fills the pull cache with this customer's segments;
                    // the pull after it must answer for the new customer, never from that cache
                    // or from a fetch for the customer left.
                    _ = pulledCustomer()
                    if engine.transport.fetchesInFlight > 0 { switchesDuringAFetch.wrappingIncrement(ordering: .relaxed) }
                    let returned = switching { client.anonymize() }
                    switchedAwayAt.withLock { $0[previous] = returned }
                    let cookie = client.customerIds["cookie"] ?? ""
                    script(cookie)
                    if let pulled = pulledCustomer() {
                        if pulled == cookie {
                            pullsAnswered.wrappingIncrement(ordering: .relaxed)
                        } else {
                            stalePulls.wrappingIncrement(ordering: .relaxed)
                        }
                    }
                }
                switches.wrappingIncrement(ordering: .relaxed)
            }
            switcherDone.signal()
        }
        switcher.start()
        progress.say("switching \(ReportFormat.number(switchRate))/s for \(ReportFormat.number(seconds)) s while 2 producers track")
        secondHalf.store(monotonicNanoseconds() + UInt64(seconds / 2 * 1e9), ordering: .relaxed)
        let outcome = LoadGenerator.run(producers: 2, seconds: seconds, ratePerProducer: options.rate ?? 2_000) { _, _ in
            try? client.trackEvent(eventType: "view_item")
        }
        running.store(false, ordering: .relaxed)
        switcherDone.wait()
        _ = client.waitUntilIdle(timeout: .seconds(60))
        let statistics = client.counters
        let lost = outcome.operations - backend.eventsAccepted
        let achievedRate = Double(switches.load(ordering: .relaxed)) / seconds
        let figures = [
            Figure(name: "customer-switch.staleDeliveries", value: Double(stale.load(ordering: .relaxed)), unit: "count", gate: .zero,
                   summary: "deliveries of a previous customer's segments more than 10 ms after the switch returned"),
            Figure(name: "customer-switch.unmarkedDeliveries", value: Double(unmarked.load(ordering: .relaxed)), unit: "count", gate: .zero,
                   summary: "deliveries of segments that name no customer (would mean foreign or corrupt data)"),
            Figure(name: "customer-switch.repeatedDeliveries", value: Double(repeated.load(ordering: .relaxed)), unit: "count", gate: .zero,
                   summary: "deliveries that gave a callback the same segments as its previous one, with no switch between (SPEC §4: changes only)"),
            Figure(name: "customer-switch.clearingDeliveries", value: Double(cleared.load(ordering: .relaxed)), unit: "count",
                   summary: "deliveries of an empty list: a switch cleared what callbacks showed while the previous customer's check was still in flight a debounce later"),
            Figure(name: "customer-switch.lostEvents", value: Double(lost), unit: "count", gate: .zero,
                   summary: "events tracked minus events the backend accepted"),
            Figure(name: "customer-switch.deliveries", value: Double(deliveries.load(ordering: .relaxed)), unit: "count",
                   summary: "callback invocations"),
            // The counts above are 0 too when nothing is delivered: this one is not.
            Figure(name: "customer-switch.noDeliveryInTheSecondHalf", value: laterDeliveries.load(ordering: .relaxed) == 0 ? 1 : 0,
                   unit: "count", gate: .zero,
                   summary: "1 if no callback received a switched-to customer's segments in the run's second half: deliveries stopped after switches, and the counts above checked nothing"),
            Figure(name: "customer-switch.stalePulls", value: Double(stalePulls.load(ordering: .relaxed)), unit: "count", gate: .zero,
                   summary: "getSegments calls made right after anonymize() returned that answered another customer's segments"),
            Figure(name: "customer-switch.noPullAnsweredAfterASwitch", value: pullsAnswered.load(ordering: .relaxed) == 0 ? 1 : 0,
                   unit: "count", gate: .zero,
                   summary: "1 if no getSegments call after anonymize() answered the new customer's segments: the stale pull count checked nothing"),
            Figure(name: "customer-switch.switchesDuringAFetch", value: Double(switchesDuringAFetch.load(ordering: .relaxed)),
                   unit: "count", summary: "anonymize() calls made while a fetch for the customer left was in flight"),
            Figure(name: "customer-switch.noSwitchDuringAFetch", value: switchesDuringAFetch.load(ordering: .relaxed) == 0 ? 1 : 0,
                   unit: "count", gate: .zero,
                   summary: "1 if no anonymize() came while a fetch was in flight: the stale count never saw an answer fetched for the customer left"),
            Figure(name: "customer-switch.switches", value: Double(switches.load(ordering: .relaxed)), unit: "count",
                   summary: "identify/anonymize calls"),
            Figure(name: "customer-switch.achievedSwitchRate", value: achievedRate, unit: "switches/s",
                   summary: "switches per second the switcher made (asked: \(ReportFormat.number(switchRate))/s); each anonymize() waits for a pull before and after it"),
            Figure(name: "customer-switch.staleResultsDropped", value: Double(statistics.staleResultsDropped), unit: "count",
                   summary: "fetch results dropped because the customer changed while they were in flight"),
        ]
        var notes: [String] = []
        if achievedRate < 0.9 * Double(switchRate) {
            notes.append("The switcher made \(ReportFormat.number(achievedRate)) switches/s of the \(ReportFormat.number(switchRate))/s asked: each anonymize() waits for a pull before and after it, each up to a fetch (answered in 30 ms).")
        }
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["switchRate": "\(switchRate)", "duration": "\(seconds)", "debounce": "\(debounce)"]) { $1 },
            figures: figures,
            latencies: [endToEnd.withLock { $0 }.summary(
                "server change to callback",
                definition: "the mock server's stamp of a membership change → each callback's first invocation with that change's segments (includes the \(debounce) debounce, its max-wait of twice that, and the mock's 30 ms answer)")],
            allocationsMeasured: false, notes: notes)
    }
}
