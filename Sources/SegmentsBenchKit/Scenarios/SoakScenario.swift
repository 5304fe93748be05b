import Atomics
import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting

/// `soak`: a long run whose memory must stay flat.
public struct SoakScenario: Scenario {
    public init() {}
    public let name = "soak"
    public let honouredOptions: Set<BenchOptionName> = [.duration, .transport, .rate]
    public let needsMockIntrospection: String? = nil
    public let simulates = "a long mixed run for one customer: 2 producers tracking at a steady rate, identify calls, 100 callbacks, pulls (no anonymize: every new customer legitimately grows the mock backend, which would hide an engine leak)"
    public let measures = "RSS and jemalloc active bytes sampled every second; growth from the end of warm-up to the end (flat = no leak); bytes kept per operation after warm-up (a slow leak)"
    public let shortestDuration: (seconds: Double, reason: String)? = (
        3, "it samples memory once a second and compares the last sample with the one after warm-up")

    /// The most bytes a soak may keep per operation after warm-up (see `soak.retainedBytesPerOperation`).
    static let retainedBytesLimit = 16.0

    /// The least-squares slope of bytes against operations, or nil with fewer than two distinct
    /// operation counts.
    static func bytesPerOperation(_ samples: [(operations: Int, bytes: UInt64)]) -> Double? {
        guard samples.count >= 2 else { return nil }
        let meanX = samples.reduce(0.0) { $0 + Double($1.operations) } / Double(samples.count)
        let meanY = samples.reduce(0.0) { $0 + Double($1.bytes) } / Double(samples.count)
        var covariance = 0.0
        var variance = 0.0
        for sample in samples {
            let dx = Double(sample.operations) - meanX
            covariance += dx * (Double(sample.bytes) - meanY)
            variance += dx * dx
        }
        return variance > 0 ? covariance / variance : nil
    }

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let seconds = options.duration(default: 30)
        let engine = try EngineUnderTest.make(
            transport: options.transport, target: options.target, debounce: .milliseconds(100), engine: options.engine)
        defer { engine.shutdown() }
        engine.engine.addCallbacks((0..<100).map { index in
            SegmentCallbackData(category: index % 2 == 0 ? .discovery : .content, isIncludeFirstLoad: index % 10 == 0) { blackHole($0) }
        })
        engine.engine.start()
        let client = engine.engine
        let rss = LockedBox<[ChartSeries.Point]>([])
        let active = LockedBox<[ChartSeries.Point]>([])
        let running = ManagedAtomic<Bool>(true)
        let tracked = ManagedAtomic<Int>(0)
        let operations = ManagedAtomic<Int>(0)
        // jemalloc's allocated bytes against the operations made by then, once a second.
        let allocated = LockedBox<[(operations: Int, bytes: UInt64)]>([])
        let sampled = DispatchSemaphore(value: 0)
        let sampler = Thread {
            let start = monotonicNanoseconds()
            while running.load(ordering: .relaxed) {
                let elapsed = Double(monotonicNanoseconds() - start) / 1e9
                if let bytes = AllocationProbe.residentBytes() { rss.withLock { $0.append(.init(x: elapsed, y: Double(bytes) / 1_048_576)) } }
                if let snapshot = AllocationProbe.snapshot() {
                    active.withLock { $0.append(.init(x: elapsed, y: Double(snapshot.activeBytes) / 1_048_576)) }
                    let made = operations.load(ordering: .relaxed)
                    allocated.withLock { $0.append((made, snapshot.allocatedBytes)) }
                }
                usleep(1_000_000)
            }
            sampled.signal()
        }
        sampler.start()
        progress.say("\(Int(seconds)) s soak")
        let reporter = Thread { progress.countdown("soak", seconds: seconds) { !running.load(ordering: .relaxed) } }
        reporter.start()
        _ = LoadGenerator.run(producers: 2, seconds: seconds, ratePerProducer: options.rate ?? 2_000) { producer, sequence in
            operations.wrappingIncrement(ordering: .relaxed)
            if producer == 1, sequence % 1_000 == 999 {
                try? client.identifyCustomer(properties: ["visits": .number(Double(sequence))])
            } else if producer == 1, sequence % 100 == 0 {
                client.getSegments(category: .discovery) { blackHole($0) }
            } else if (try? client.trackEvent(eventType: "view_item", properties: ["n": .number(Double(sequence))])) != nil {
                tracked.wrappingIncrement(ordering: .relaxed)
            }
        }
        running.store(false, ordering: .relaxed)
        sampled.wait()
        _ = client.waitUntilIdle(timeout: .seconds(30))
        let rssPoints = rss.withLock { $0 }
        let activePoints = active.withLock { $0 }
        // What the backend acknowledged (as the client saw it): memory that stays flat because
        // nothing was sent, or a target that never answered, is not a clean soak.
        var figures = [Figure(
            name: "soak.eventsUnconfirmed", value: Double(tracked.load(ordering: .relaxed) - client.counters.eventsUploaded), unit: "count",
            gate: .zero, summary: "events tracked minus events whose upload the backend acknowledged, after draining")]
        // Growth after warm-up (the first third): buffers and caches reach their working size first.
        func growth(_ points: [ChartSeries.Point]) -> Double? {
            guard points.count >= 3 else { return nil }
            let settled = points[points.count / 3].y
            return settled > 0 ? points[points.count - 1].y / settled : nil
        }
        if let rssGrowth = growth(rssPoints) {
            figures.append(Figure(name: "soak.rssGrowth", value: rssGrowth, unit: "ratio", gate: .lowerIsBetter(relative: 0.5, absolute: 0.25),
                                  summary: "RSS at the end over RSS after warm-up (1.0 = flat)"))
            figures.append(Figure(name: "soak.rssEndMiB", value: rssPoints.last?.y ?? 0, unit: "MiB", summary: "RSS at the end"))
        }
        if let activeGrowth = growth(activePoints) {
            figures.append(Figure(name: "soak.jemallocActiveGrowth", value: activeGrowth, unit: "ratio",
                                  gate: .lowerIsBetter(relative: 0.5, absolute: 0.25),
                                  summary: "jemalloc active bytes at the end over after warm-up (1.0 = flat)"))
        }
        // The bytes the run kept per operation after warm-up (the first third): the slope of
        // allocated bytes against operations made, fitted over the samples taken under load (an
        // idle end would compare a heap holding the load's batches with one that does not). A
        // leak of a few bytes an operation shows here long before it moves a ratio of the heap.
        let samples = allocated.withLock { $0 }
        if samples.count >= 4, let kept = Self.bytesPerOperation(Array(samples[(samples.count / 3)...])) {
            figures.append(Figure(
                name: "soak.retainedBytesPerOperation", value: kept, unit: "bytes/op", gate: .atMost(Self.retainedBytesLimit),
                summary: "slope of jemalloc's allocated bytes against operations made, over the samples after warm-up "
                    + "(≤ \(Int(Self.retainedBytesLimit)): a leak of that much an operation would exceed it)"))
        }
        var notes: [String] = AllocationProbe.isAvailable ? [] : [AllocationProbe.unavailableNote]
        if !figures.contains(where: { $0.name == "soak.rssGrowth" }) {
            notes.append("soak.rssGrowth not measured: \(rssPoints.count) RSS samples, 3 needed (RSS is read from /proc/self/statm on Linux)")
        }
        var series = [ChartSeries(chart: "soak-memory", label: "RSS", xLabel: "seconds", yLabel: "MiB", points: rssPoints)]
        if !activePoints.isEmpty {
            series.append(ChartSeries(chart: "soak-memory", label: "jemalloc active", xLabel: "seconds", yLabel: "MiB", points: activePoints))
        }
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["duration": "\(seconds)"]) { $1 },
            figures: figures, series: series, allocationsMeasured: AllocationProbe.isAvailable,
            notes: notes)
    }
}
