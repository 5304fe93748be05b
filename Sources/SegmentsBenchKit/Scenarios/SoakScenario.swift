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
    public let measures = "RSS and jemalloc active bytes sampled every second; growth from the end of warm-up to the end (flat = no leak); bytes kept per operation after warm-up, from allocated bytes sampled ten times a second (a slow leak)"
    public let shortestDuration: (seconds: Double, reason: String)? = (
        3, "it samples memory once a second and compares the last sample with the one after warm-up")

    /// The most bytes a soak may keep per operation after warm-up (see `soak.retainedBytesPerOperation`).
    static let retainedBytesLimit = 16.0
    /// The figure of the bytes kept per operation, read from jemalloc's allocated bytes.
    static let retainedBytesFigure = "soak.retainedBytesPerOperation"

    /// The samples of allocated bytes a fit uses at most; longer runs are thinned evenly, which
    /// keeps the pairwise fit's work bounded (its pairs grow with the square of the samples).
    static let fittedSamplesLimit = 400

    /// The slope of bytes against operations, by Theil–Sen: the median of the slopes between every
    /// two samples of distinct operation counts. A heap's level moves with what is in flight at the
    /// moment of a sample (a batch on its way to the transport, a producer's buffers), and a
    /// least-squares line follows one such moment near an end of the run by megabytes; the median
    /// ignores any minority of such samples, while a leak raises every pair alike. Nil with fewer
    /// than two distinct operation counts.
    static func bytesPerOperation(_ samples: [(operations: Int, bytes: UInt64)]) -> Double? {
        let stride = max(1, (samples.count + fittedSamplesLimit - 1) / fittedSamplesLimit)
        let fitted = Swift.stride(from: 0, to: samples.count, by: stride).map { samples[$0] }
        var slopes: [Double] = []
        slopes.reserveCapacity(fitted.count * (fitted.count - 1) / 2)
        for later in fitted.indices {
            for earlier in fitted.indices where earlier < later {
                let operations = fitted[later].operations - fitted[earlier].operations
                guard operations != 0 else { continue }
                slopes.append((Double(fitted[later].bytes) - Double(fitted[earlier].bytes)) / Double(operations))
            }
        }
        guard !slopes.isEmpty else { return nil }
        slopes.sort()
        let middle = slopes.count / 2
        return slopes.count % 2 == 1 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2
    }

    /// The samples taken while the load ran: those read before its last operation. (A sample
    /// reads the heap, then the operations made: fewer than the total means the load was running
    /// when the heap was read.)
    static func takenUnderLoad(_ samples: [(operations: Int, bytes: UInt64)], operationsMade: Int) -> [(operations: Int, bytes: UInt64)] {
        samples.filter { $0.operations < operationsMade }
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
        // jemalloc's allocated bytes against the operations made by then, ten times a second
        // (the fit's samples; fewer past 400 s, at most about 4,000 in all); RSS and active bytes
        // once a second (the chart and the growth ratios). Room for every sample up front: the
        // array growing under load would be read as the engine's (at a low --rate, bytes per
        // operation near the limit).
        let ticksPerSample = max(1, Int(seconds * 10 / 4_000))
        let allocated = LockedBox<[(operations: Int, bytes: UInt64)]>([])
        allocated.withLock { $0.reserveCapacity(Int(seconds * 10) / ticksPerSample + 64) }
        let sampled = DispatchSemaphore(value: 0)
        let sampler = Thread {
            let start = monotonicNanoseconds()
            var tick = 0
            while running.load(ordering: .relaxed) {
                if tick % ticksPerSample == 0 || tick % 10 == 0, let snapshot = AllocationProbe.snapshot() {
                    // Read after the snapshot: fewer operations than the run's total means the load
                    // was still running when the heap was read.
                    let made = operations.load(ordering: .relaxed)
                    if tick % ticksPerSample == 0 { allocated.withLock { $0.append((made, snapshot.allocatedBytes)) } }
                    if tick % 10 == 0 {
                        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
                        active.withLock { $0.append(.init(x: elapsed, y: Double(snapshot.activeBytes) / 1_048_576)) }
                    }
                }
                if tick % 10 == 0, let bytes = AllocationProbe.residentBytes() {
                    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
                    rss.withLock { $0.append(.init(x: elapsed, y: Double(bytes) / 1_048_576)) }
                }
                tick += 1
                usleep(100_000)
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
        let underLoad = Self.takenUnderLoad(allocated.withLock { $0 }, operationsMade: operations.load(ordering: .relaxed))
        if underLoad.count >= 4, let kept = Self.bytesPerOperation(Array(underLoad[(underLoad.count / 3)...])) {
            figures.append(Figure(
                name: Self.retainedBytesFigure, value: kept, unit: "bytes/op", gate: .atMost(Self.retainedBytesLimit),
                summary: "slope of jemalloc's allocated bytes against operations made (the median of every two samples' slopes, "
                    + "sampled ten times a second under load, after warm-up; ≤ \(Int(Self.retainedBytesLimit)): a leak of that much an operation would exceed it)"))
        }
        var notes: [String] = AllocationProbe.isAvailable ? [] : [AllocationProbe.unavailableNote]
        if AllocationProbe.isAvailable, !figures.contains(where: { $0.name == Self.retainedBytesFigure }) {
            notes.append("\(Self.retainedBytesFigure) not measured: \(underLoad.count) allocation samples taken under load, 4 needed")
        }
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
