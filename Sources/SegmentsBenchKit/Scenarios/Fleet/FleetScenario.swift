import Atomics
import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsTesting

/// `fleet`: many devices in one process, each a real `SegmentsClient` on a shared
/// `SegmentsEngineGroup`, under open-model (Poisson) tracking and customer-switch arrivals.
public struct FleetScenario: Scenario {
    public init() {}
    public let name = "fleet"
    public let honouredOptions: Set<BenchOptionName> = [
        .devices, .rate, .stages, .duration, .switchRate, .debounce, .transport, .seed, .fetchDelayMs,
    ]
    public let needsMockIntrospection: String? = nil
    public let simulates =
        "--devices clients (own customer, cookie, 3 callbacks, debounce, first load) sharing a few engine threads; Poisson event arrivals at --rate or --stages across the fleet, customer switches at --switch-rate; the mock answers fetches after --fetch-delay-ms, so that switches overlap them"
    public let measures =
        "lost events, stale and repeated deliveries, excess fetches, dropped arrivals (all must be 0); fetch, link and upload latency and server change → callback (not against --target: it needs the mock's scripted changes), from each operation's intended start; memory per device"

    /// The categories every device listens to, one callback each.
    static let categories: [SegmentCategory] = [.discovery, .content, .merchandising]

    /// Its latencies' names, known before a run, so that a `--threshold` naming another is refused
    /// before the run.
    public static let latencyMetrics = ["change-to-callback", "fetch", "link", "upload", "track", "switch", "first-load"]

    /// The latencies that need the mock (its scripted, stamped segment changes): not measured
    /// against a target, so a `--threshold` there may not name them.
    public static let mockOnlyLatencyMetrics: Set<String> = ["change-to-callback"]

    /// The mock's delay before it answers a fetch without `--fetch-delay-ms`, in milliseconds.
    /// Longer than the 10 ms grace before a delivery of a customer switched away from counts as stale:
    /// only a fetch still in flight that long after a switch can deliver the previous customer's
    /// segments late enough to be counted stale.
    public static let defaultFetchDelayMs = 20.0

    /// The memory the process may use: the cgroup's limit (`memory.max`) where one is set, else the
    /// machine's.
    static func memoryLimitBytes() -> UInt64? {
        let physical = ProcessInfo.processInfo.physicalMemory
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            let limit = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0
        {
            return min(limit, physical)
        }
        return physical > 0 ? physical : nil
    }

    /// The fleet's size without `--devices`.
    public static func defaultDevices(quick: Bool) -> Int { quick ? 200 : 1_000 }

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let deviceCount = max(1, options.devices ?? Self.defaultDevices(quick: options.quick))
        let schedule = options.stages ?? .constant(rate: options.rate ?? 2_000, seconds: options.duration(default: 20))
        let switchRate = options.switchRate ?? 20
        let debounce = options.debounce(default: 0.1)
        let threads = min(4, max(2, CgroupCPULimit.currentCores()))
        // Generator g drives devices g, g + G, …: never more generators than devices, or one
        // would draw arrivals with no device to give them to.
        let generators = min(2, deviceCount)

        let target = options.target
        let fetchDelay = Duration.milliseconds(options.fetchDelayMs ?? Self.defaultFetchDelayMs)
        if let target, let named = options.thresholds?.first(where: {
            $0.scenario == name && $0.statistic != .value && Self.mockOnlyLatencyMetrics.contains($0.metric)
        }) {
            throw FleetScenarioError.notMeasuredAgainstTarget(threshold: named.text, target: target.description)
        }
        let backend = try FleetBackend.make(options.transport, target: target, fetchDelay: fetchDelay)
        defer { backend.shutdown() }
        let measurements = FleetMeasurements()
        let group = SegmentsEngineGroup(threadCount: threads)
        var logger = Logger(label: "segments-bench.fleet")
        logger.logLevel = .critical

        progress.say("starting \(deviceCount) devices on \(threads) engine threads (\(target.map { "--target \($0.description)" } ?? options.transport.rawValue))")
        let residentBefore = AllocationProbe.residentBytes()
        var starting: [FleetDevice] = []
        starting.reserveCapacity(deviceCount)
        let memoryLimit = Self.memoryLimitBytes()
        for index in 0..<deviceCount {
            let device = try FleetDevice(
                index: index, backend: backend, factory: options.engine, group: group, debounce: debounce,
                measurements: measurements, logger: logger)
            device.start()
            starting.append(device)
            // A fleet larger than the machine's memory would take it all before the load starts:
            // checked as devices start, projected from the memory the first ones took.
            if (index + 1) % 1_000 == 0, let limit = memoryLimit, let before = residentBefore, let now = AllocationProbe.residentBytes() {
                let perDevice = Double(now > before ? now - before : 0) / Double(index + 1)
                let projected = Double(before) + perDevice * Double(deviceCount) * 1.5
                if Double(now) > 0.75 * Double(limit) || projected > 0.75 * Double(limit) {
                    for started in starting { started.engine.stop() }
                    throw FleetRunError.tooLittleMemory(
                        devices: deviceCount, started: index + 1, bytesPerDevice: perDevice, limitBytes: limit)
                }
            }
        }
        let devices = starting
        progress.say("waiting up to 120 s for the \(deviceCount) devices' first loads (a debounce after their start)")
        let loadDeadline = monotonicNanoseconds() + 120_000_000_000
        while measurements.devicesLoaded.load(ordering: .relaxed) < deviceCount, monotonicNanoseconds() < loadDeadline {
            usleep(10_000)
        }
        // Not one answer: the backend is not answering (a --target down, wrong credentials), and
        // the load would measure nothing but failures.
        guard measurements.devicesLoaded.load(ordering: .relaxed) > 0 else {
            for device in devices { device.engine.stop() }
            throw FleetRunError.noFirstLoad(devices: deviceCount, failures: measurements.transportFailures.load(ordering: .relaxed))
        }
        let residentAfter = AllocationProbe.residentBytes()
        let loaded = measurements.devicesLoaded.load(ordering: .relaxed)
        progress.say("\(loaded) of \(deviceCount) devices had their first load; events \(schedule), \(switchRate) switches/s")

        let tracked = ManagedAtomic<Int>(0)
        let trackFailures = ManagedAtomic<Int>(0)
        let running = ManagedAtomic<Bool>(true)
        let reporter = Thread {
            progress.countdown("load", seconds: schedule.totalSeconds) { !running.load(ordering: .relaxed) }
        }
        reporter.start()
        // The fetch latency is the load's: the devices' start-up fetches (every device at once,
        // timed in first-load) would otherwise make up most of it. Reset before the live metrics
        // first read it, so their counts never go down.
        measurements.fetch.withLock { $0 = LatencyRecorder() }
        // Live metrics (--metrics-port): the counters above, read by a sampler thread.
        let sampler = progress.sampleMetrics {
            LiveSample(
                events: tracked.load(ordering: .relaxed), deliveries: measurements.deliveries.load(ordering: .relaxed),
                staleDeliveries: measurements.staleDeliveries.load(ordering: .relaxed),
                ringStalls: devices.reduce(0) { $0 + $1.engine.counters.producerStalls }, latencies: measurements.liveLatencies())
        }
        let switchSchedule = LoadStages.constant(rate: switchRate, seconds: schedule.totalSeconds)
        let outcome = LoadGenerator.runOpen(generators: generators, streams: [schedule, switchSchedule], seed: options.seed) {
            generator, stream, intended, random in
            // Generator g drives the devices g, g + G, g + 2G, …: one thread per device.
            let share = (deviceCount - generator + generators - 1) / generators
            guard share > 0 else { return }
            let device = devices[generator + generators * Int(random.next() % UInt64(share))]
            let category = Self.categories[Int(random.next() % 3)]
            if stream == 0 {
                if device.track(category: category, intended: intended, backend: backend) {
                    tracked.wrappingIncrement(ordering: .relaxed)
                } else {
                    trackFailures.wrappingIncrement(ordering: .relaxed)
                }
            } else {
                device.switchCustomer(identify: random.next() % 3 == 0, intended: intended, backend: backend, category: category)
            }
        }
        running.store(false, ordering: .relaxed)
        progress.say("draining")
        // One deadline for the whole fleet, not a wait per device: a fleet that does not drain
        // costs a minute, not a minute per device.
        func devicesNotIdle(within seconds: UInt64) -> Int {
            let deadline = monotonicNanoseconds() + seconds * 1_000_000_000
            return devices.count { device in
                let now = monotonicNanoseconds()
                let left = deadline > now ? deadline - now : 0
                return !device.engine.waitUntilIdle(timeout: .nanoseconds(Int64(left)))
            }
        }
        var undrained = devicesNotIdle(within: 60)
        // The checks that the last uploads started, so their callbacks come in.
        usleep(UInt32(min(2_000_000, debounce.wholeNanoseconds / 1_000 * 3)))
        undrained += devicesNotIdle(within: 60)
        let accepted = backend.eventsAccepted
        let acknowledged = measurements.eventsAcknowledged.load(ordering: .relaxed)
        let trackedCount = tracked.load(ordering: .relaxed)
        let foreign = devices.reduce(0) { $0 + $1.foreignMarkers }
        let stale = measurements.staleDeliveries.load(ordering: .relaxed) + foreign
        let excessFetches = measurements.excessFetches.load(ordering: .relaxed)
        let statistics = devices.reduce(into: (drops: 0, stalls: 0)) {
            let statistics = $1.engine.counters
            $0.drops += statistics.staleResultsDropped
            $0.stalls += statistics.producerStalls
        }
        sampler?.stop(final: LiveSample(
            // Against a target the server's count is unknown: the events the client saw no
            // acknowledgement for stand in (fleet.eventsUnconfirmed).
            events: trackedCount, deliveries: measurements.deliveries.load(ordering: .relaxed),
            lostEvents: max(0, trackedCount - (accepted ?? acknowledged)),
            staleDeliveries: stale, ringStalls: statistics.stalls, latencies: measurements.liveLatencies()))
        progress.say("stopping \(deviceCount) devices")
        DispatchQueue.concurrentPerform(iterations: 8) { slice in
            for index in stride(from: slice, to: devices.count, by: 8) { devices[index].engine.stop() }
        }

        var latencies: [(metric: String, recorder: LatencyRecorder, definition: String)] = [
            ("change-to-callback", measurements.changeToCallback.withLock { $0 },
             "intended start of a tracked event or switch (the server's segments change then) → each callback's first delivery of that change or of one that replaced it (includes upload, the \(debounce) debounce and the fetch)"),
            ("fetch", measurements.fetch.withLock { $0 }, "transport fetch call, start → return, during the load (the start-up fetches are in first-load)"),
            ("link", measurements.link.withLock { $0 }, "intended start of an identify with a new hard id → its link call returned (the link precedes the debounced check)"),
            ("upload", measurements.upload.withLock { $0 }, "each event's intended start → the upload carrying it returned (tracking → acknowledged)"),
            ("track", outcome.latency[0], "intended start → trackEvent returned (with the server-side change scripted before it)"),
            ("switch", outcome.latency[1], "intended start → identifyCustomer or anonymize returned"),
            ("first-load", measurements.firstLoad.withLock { $0 }, "start() → the device's first callback"),
        ]
        var notes: [String] = []
        let dropped = outcome.dropped.reduce(0, +)
        if dropped > 0 {
            notes.append(
                "The generators fell behind the schedule and were still behind \(ReportFormat.number(LoadGenerator.gracefulStopSeconds)) s after its end: "
                    + "\(ReportFormat.number(Double(dropped))) scheduled events and switches were never issued (fleet.droppedArrivals). Lower --rate or --devices.")
        }
        if let target {
            // No scripted changes on a target, so nothing to time a change by: left out, not reported empty.
            latencies.removeAll { Self.mockOnlyLatencyMetrics.contains($0.metric) }
            notes.append(
                "Against --target \(target.description): not measured: \(Self.mockOnlyLatencyMetrics.sorted().joined(separator: ", ")) "
                    + "(needs the mock's scripted segment changes) and lostEvents (the mock's count of stored events); "
                    + "eventsUnconfirmed counts the events whose upload the target did not acknowledge, as the client saw them.")
        }
        var memoryPerDevice: Double?
        if let residentBefore, let residentAfter {
            memoryPerDevice = (Double(residentAfter) - Double(residentBefore)) / Double(deviceCount)
        }

        var figures: [Figure] = []
        if let accepted {
            figures.append(Figure(name: "fleet.lostEvents", value: Double(trackedCount - accepted), unit: "count", gate: .zero,
                                  summary: "events tracked minus events the mock backend stored after draining"))
        } else {
            figures.append(Figure(name: "fleet.eventsUnconfirmed", value: Double(trackedCount - acknowledged), unit: "count", gate: .zero,
                                  summary: "events tracked minus events in uploads the target acknowledged (counted by the client) after draining"))
        }
        figures += [
            Figure(name: "fleet.staleDeliveries", value: Double(stale), unit: "count", gate: .zero,
                   summary: "callbacks given segments of a customer the device had left more than 10 ms before, or never was"),
            Figure(name: "fleet.repeatedDeliveries", value: Double(measurements.repeatedDeliveries.load(ordering: .relaxed)),
                   unit: "count", gate: .zero,
                   summary: "callbacks given the same segments as their previous delivery with no identify or anonymize between"),
            Figure(name: "fleet.unmarkedDeliveries", value: Double(measurements.unmarkedDeliveries.load(ordering: .relaxed)), unit: "count",
                   gate: .zero, summary: "callbacks given segments that name no customer"),
            Figure(name: "fleet.excessFetches", value: Double(excessFetches), unit: "count", gate: .zero,
                   summary: "fetches of one device and customer under half a debounce after its previous one (over 1 per debounce window)"),
            Figure(name: "fleet.trackFailures", value: Double(trackFailures.load(ordering: .relaxed)), unit: "count", gate: .zero,
                   summary: "trackEvent calls that threw"),
            // The stale, unmarked and excess counts are 0 too when nothing is delivered: this is not.
            Figure(name: "fleet.nothingDelivered", value: measurements.deliveries.load(ordering: .relaxed) == 0 ? 1 : 0, unit: "count",
                   gate: .zero, summary: "1 if no callback of any device was called: the counts above checked nothing"),
            Figure(name: "fleet.devices", value: Double(deviceCount), unit: "count", summary: "simulated devices"),
            Figure(name: "fleet.engineThreads", value: Double(threads), unit: "count", summary: "threads of the shared engine group"),
            Figure(name: "fleet.devicesLoaded", value: Double(loaded), unit: "count", summary: "devices whose first load reached a callback before the load began"),
            Figure(name: "fleet.eventsTracked", value: Double(trackedCount), unit: "count", summary: "events tracked"),
            Figure(name: "fleet.eventsAcknowledged", value: Double(acknowledged), unit: "count",
                   summary: "events in uploads the server answered with success (counted by the client)"),
            Figure(name: "fleet.eventsPerSecond", value: Double(trackedCount) / max(outcome.elapsedSeconds, 0.001), unit: "ops/s",
                   summary: "events tracked per second, whole fleet (over the time the schedule took)"),
            Figure(name: "fleet.switches", value: Double(outcome.operations[1]), unit: "count", summary: "identify and anonymize calls"),
            Figure(name: "fleet.fetches", value: Double(measurements.fetches.load(ordering: .relaxed)), unit: "count", summary: "fetches started"),
            Figure(name: "fleet.deliveries", value: Double(measurements.deliveries.load(ordering: .relaxed)), unit: "count", summary: "callback invocations"),
            Figure(name: "fleet.transportFailures", value: Double(measurements.transportFailures.load(ordering: .relaxed)), unit: "count",
                   summary: "transport calls that failed (uploads are retried)"),
            Figure(name: "fleet.staleResultsDropped", value: Double(statistics.drops), unit: "count",
                   summary: "fetch results the engines dropped because the customer changed meanwhile"),
            Figure(name: "fleet.producerStalls", value: Double(statistics.stalls), unit: "count",
                   summary: "trackEvent calls that found a device's ring full and waited"),
            Figure(name: "fleet.undrainedDevices", value: Double(undrained), unit: "count", summary: "devices not idle within 60 s after the load"),
            Figure(name: "fleet.generatorLagMs", value: Double(outcome.maximumStartLag) / 1e6, unit: "ms",
                   summary: "largest delay of an arrival behind its intended start (the generators' own lag)"),
            Figure(name: "fleet.droppedArrivals", value: Double(outcome.dropped.reduce(0, +)), unit: "count", gate: .zero,
                   summary: "scheduled events and switches never issued: the generators were still behind \(ReportFormat.number(LoadGenerator.gracefulStopSeconds)) s after the schedule's end (k6's dropped iterations)"),
        ]
        if let memoryPerDevice {
            figures.append(Figure(name: "fleet.memoryPerDeviceBytes", value: memoryPerDevice, unit: "bytes",
                                  summary: "RSS after every device started and loaded, minus before, divided by the devices"))
        }
        var settings = [
            "devices": "\(deviceCount)", "stages": schedule.description, "switchRate": "\(switchRate)",
            "debounce": "\(debounce)", "engineThreads": "\(threads)", "ingestCapacity": "64",
        ]
        // A target answers as it does: the mock's delay shaped the run only without one.
        if target == nil { settings["fetchDelay"] = "\(fetchDelay)" }
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(settings) { $1 },
            figures: figures,
            latencies: latencies.map {
                // Timed from an intended start (coordinated-omission corrected): all but fetch and first load.
                $0.recorder.summary($0.metric, definition: $0.definition, corrected: !["fetch", "first-load"].contains($0.metric))
            },
            allocationsMeasured: false,
            notes: notes)
    }
}

/// Why a fleet run could not start with its options. A usage error of the command line.
public enum FleetScenarioError: Error, Equatable, CustomStringConvertible {
    /// A `--threshold` names a latency that a run against a target does not measure.
    case notMeasuredAgainstTarget(threshold: String, target: String)

    public var description: String {
        switch self {
        case .notMeasuredAgainstTarget(let threshold, let target):
            "--threshold \(threshold) names a latency that fleet does not measure against --target \(target): "
                + "it needs the mock's scripted segment changes"
        }
    }
}

/// Why a fleet run measured nothing (a harness error).
public enum FleetRunError: Error, Equatable, CustomStringConvertible {
    /// No device's first load arrived within 120 s of the start.
    case noFirstLoad(devices: Int, failures: Int)
    /// The devices started so far took so much memory that all of them would not fit in three
    /// quarters of the machine's (with half again for their first loads).
    case tooLittleMemory(devices: Int, started: Int, bytesPerDevice: Double, limitBytes: UInt64)

    public var description: String {
        switch self {
        case .noFirstLoad(let devices, let failures):
            "no device of \(devices) got its first segments within 120 s of its start (\(failures) transport calls failed): "
                + "the backend is not answering (check --target, --project-token and --authorization, or --debounce)"
        case .tooLittleMemory(let devices, let started, let bytesPerDevice, let limitBytes):
            "\(devices) devices do not fit in this machine's memory: the first \(started) took \(ReportFormat.value(bytesPerDevice, unit: "bytes")) each, "
                + "and \(ReportFormat.value(Double(limitBytes), unit: "bytes")) is available; lower --devices, or run the fleet on several machines (docs/many-machines.md)"
        }
    }
}
