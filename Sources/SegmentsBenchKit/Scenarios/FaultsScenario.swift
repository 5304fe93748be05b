import Atomics
import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting
import SegmentsMockServer

/// `faults`: the mock server's fault modes under load.
public struct FaultsScenario: Scenario {
    /// The faults to inject in place of ``faultPlan(seed:overHTTP:)`` (tests inject their own).
    private let plan: FaultPlan?

    public init() { plan = nil }

    /// A scenario that injects `plan` whatever the seed.
    init(injecting plan: FaultPlan) { self.plan = plan }

    public let name = "faults"
    public let honouredOptions: Set<BenchOptionName> = [.duration, .transport, .seed, .rate]
    /// Against a target the faults are the server's own (`serve --faults --seed`): no seed here.
    public let honouredOptionsAgainstTarget: Set<BenchOptionName> = [.duration, .rate]
    public let needsMockIntrospection: String? = nil
    public let simulates = "tracking, identify and pull traffic while every endpoint fails at random: 5xx/429/401 statuses (uploads: 5xx/429/408), added latency, hangs past the request deadline, malformed and truncated bodies, connection resets (seeded)"
    public let measures = "errors and timeouts seen by the engine, lost events after the faults stop (must be 0), and how much the state file is written while uploads fail and recover"

    /// The event property that numbers each tracked event.
    static let sequenceProperty = "seq"

    /// The faults this scenario injects: every endpoint fails at random (seeded by `seed`), uploads
    /// with transient statuses only; truncated bodies only `overHTTP` (the in-process transport has
    /// no body to cut). `segments-bench serve --faults` serves the same plan, for a run against
    /// `--target`.
    public static func faultPlan(seed: UInt64, overHTTP: Bool) -> FaultPlan {
        let profile = FaultProfile(
            errorRate: 0.10, errorStatuses: [500, 503, 429, 401], latency: .uniform(.zero, .milliseconds(5)),
            hangRate: 0.01, maxHang: .seconds(2), malformedRate: 0.04, truncatedRate: overHTTP ? 0.02 : 0,
            resetRate: 0.02)
        var plan = FaultPlan.everyEndpoint(profile, seed: seed)
        // Uploads meet transient statuses only: a 401 there means a wrong key, on which the engine
        // stops uploading (keeping every event) until it is configured again, by design.
        var uploadProfile = profile
        uploadProfile.errorStatuses = [500, 503, 429, 408]
        for endpoint in [MockEndpoint.trackEvent, .trackCustomer, .trackBatch] { plan.profiles[endpoint] = uploadProfile }
        return plan
    }

    /// Against the mock, injects ``faultPlan(seed:overHTTP:)`` and turns it off before draining;
    /// against a target, the faults are the server's own (still on while draining) and only what
    /// the client saw is counted.
    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let seconds = options.duration(default: 8)
        let plan = self.plan ?? Self.faultPlan(seed: options.seed, overHTTP: options.transport == .http)
        // A state directory, as an app keeps one: failed uploads are written down, and the state
        // file's writes (count and bytes) are part of what this scenario measures.
        let stateDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("segments-bench-faults-\(ProcessInfo.processInfo.processIdentifier)-\(options.seed)")
        try? FileManager.default.removeItem(at: stateDirectory)
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        let engine = try EngineUnderTest.make(
            transport: options.transport, target: options.target, debounce: .milliseconds(50), faults: plan,
            requestTimeout: .milliseconds(300), engine: options.engine
        ) { configuration in
            configuration.cacheTTL = .milliseconds(20)
            configuration.stateDirectory = stateDirectory
        }
        defer { engine.shutdown() }
        let delivered = ManagedAtomic<Int>(0)
        for category in [SegmentCategory.discovery, .content] {
            engine.engine.addCallback(
                callbackData: SegmentCallbackData(category: category, isIncludeFirstLoad: true) { _ in
                    delivered.wrappingIncrement(ordering: .relaxed)
                })
        }
        // Each event carries its own number, so the backend tells events it never stored from
        // copies it stored twice (an upload stored, answered after the client's deadline, sent again).
        engine.mockBackend?.countDistinctEvents(byNumberProperty: Self.sequenceProperty)
        engine.engine.start()
        let client = engine.engine
        let pullErrors = ManagedAtomic<Int>(0)
        let trackedEvents = ManagedAtomic<Int>(0)
        let trackFailures = ManagedAtomic<Int>(0)
        let way = options.target.map { "the target's own faults, \($0.description)" } ?? options.transport.rawValue
        progress.say("\(Int(seconds)) s of traffic with faults on every endpoint (\(way))")
        _ = LoadGenerator.run(producers: 2, seconds: seconds, ratePerProducer: options.rate ?? 500) { producer, sequence in
            if producer == 1, sequence % 200 == 0 {
                try? client.identifyCustomer(customerIds: ["registered": "user-\(sequence)"])
            } else if producer == 1, sequence % 50 == 0 {
                // The throwing form: with no rules the mock's answer is [] too, so only an error says the fetch failed.
                Task {
                    do { _ = try await client.getSegments(category: .content, force: false) } catch {
                        pullErrors.wrappingIncrement(ordering: .relaxed)
                    }
                }
            } else if (try? client.trackEvent(
                eventType: "view_item", properties: [Self.sequenceProperty: .number(Double(producer) * 1e12 + Double(sequence))])) != nil {
                trackedEvents.wrappingIncrement(ordering: .relaxed)
            } else {
                // An engine that refused events under the faults' backpressure would otherwise
                // read no loss: lost events count only what was accepted.
                trackFailures.wrappingIncrement(ordering: .relaxed)
            }
        }
        if options.target == nil {
            progress.say("faults off; draining retries")
            engine.faults.set(.none)
        } else {
            progress.say("draining retries (the target's faults stay on)")
        }
        let expected = trackedEvents.load(ordering: .relaxed)
        // Failed uploads wait for their backoff (at most 1 s here) before the retry goes out.
        let drainDeadline = monotonicNanoseconds() + 60_000_000_000
        while client.counters.eventsUploaded < expected, monotonicNanoseconds() < drainDeadline {
            usleep(100_000)
        }
        _ = client.waitUntilIdle(timeout: .seconds(30))
        let statistics = client.counters
        var figures = [Figure(
            name: "faults.trackFailures", value: Double(trackFailures.load(ordering: .relaxed)), unit: "count", gate: .zero,
            summary: "trackEvent calls that threw (an event refused is an event lost)")]
        var notes: [String] = []
        if let backend = engine.mockBackend {
            let counts = engine.faults.counts()
            figures += [
                Figure(name: "faults.lostEvents", value: Double(expected - backend.distinctEventsAccepted), unit: "count", gate: .zero,
                       summary: "events tracked that the backend never stored, once the faults stop (copies stored twice not counted)"),
                Figure(name: "faults.duplicateEvents", value: Double(backend.eventsAccepted - backend.distinctEventsAccepted), unit: "count",
                       summary: "extra copies the backend stored (an upload stored, then sent again after a client timeout: at least once)"),
                Figure(name: "faults.injected", value: Double(counts.total), unit: "count", summary: "faults the server injected"),
                Figure(name: "faults.injectedErrors", value: Double(counts.total(.error)), unit: "count", summary: "error statuses injected"),
                Figure(name: "faults.injectedHangs", value: Double(counts.total(.hang)), unit: "count", summary: "hangs injected (client timeouts)"),
                Figure(name: "faults.injectedMalformed", value: Double(counts.total(.malformed) + counts.total(.truncated)), unit: "count",
                       summary: "malformed or truncated bodies injected"),
                Figure(name: "faults.injectedResets", value: Double(counts.total(.reset)), unit: "count", summary: "connection resets injected"),
            ]
        } else {
            // The target's own counts (events accepted, faults injected) are not reachable over its
            // API: only what the client saw is reported.
            notes.append("Against --target \(engine.target?.description ?? ""): lostEvents and the injected-fault counts are the server's "
                + "and not available; eventsUnconfirmed counts the events the server did not acknowledge.")
            figures.append(
                Figure(name: "faults.eventsUnconfirmed", value: Double(expected - statistics.eventsUploaded), unit: "count", gate: .zero,
                       summary: "events tracked minus events whose upload the target acknowledged, after draining"))
        }
        figures += [
            Figure(name: "faults.checksFailed", value: Double(statistics.checksFailed), unit: "count", summary: "listener checks that failed (logged)"),
            Figure(name: "faults.uploadFailures", value: Double(statistics.uploadFailures), unit: "count", summary: "upload attempts that failed and were retried"),
            Figure(name: "faults.pullFailures", value: Double(pullErrors.load(ordering: .relaxed)), unit: "count",
                   summary: "getSegments calls answered with a failure (their fetch failed)"),
            Figure(name: "faults.deliveries", value: Double(delivered.load(ordering: .relaxed)), unit: "count", summary: "callback invocations despite faults"),
            Figure(name: "faults.uploadsSetAside", value: Double(statistics.uploadsSetAside), unit: "count", gate: .zero,
                   summary: "events or customer updates set aside as refused for good (the faults are all transient: must be 0)"),
            Figure(name: "faults.stateWrites", value: Double(statistics.stateWrites), unit: "count",
                   summary: "writes of the state file (each failed upload, each check, answered uploads at most once a second)"),
            Figure(name: "faults.stateWritesPerUpload", value: Double(statistics.stateWrites) / Double(max(1, statistics.eventsUploaded)),
                   unit: "ratio", summary: "state file writes per uploaded event: write amplification of the upload queue"),
            Figure(name: "faults.stateBytesPerEvent", value: Double(statistics.stateBytesWritten) / Double(max(1, statistics.eventsUploaded)),
                   unit: "bytes", summary: "bytes written to the state file per uploaded event"),
        ]
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions(with: options)).merging(["duration": "\(seconds)", "requestTimeout": "300 ms"]) { $1 },
            figures: figures,
            latencies: [engine.transport.fetchRoundTrip.summary("fetch round trip", definition: "successful transport fetch calls under faults")],
            allocationsMeasured: false, notes: notes)
    }
}
