import Atomics
import Foundation
import RealtimeSegments

/// `pull`: getSegments under concurrency.
public struct PullScenario: Scenario {
    public init() {}
    public let name = "pull"
    public let simulates = "C threads calling getSegments (async form) in a loop against a 50 ms cache TTL, with occasional forced refreshes"
    public let measures = "latency of cache hits and misses, hit ratio, requests per miss (single flight: concurrent misses share one fetch)"

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let wallStart = monotonicNanoseconds()
        let threads = options.producers ?? 4
        let seconds = options.duration(default: 6)
        let engine = try EngineUnderTest.make(transport: options.transport, debounce: .seconds(60)) { configuration in
            configuration.cacheTTL = .milliseconds(50)
        }
        defer { engine.shutdown() }
        engine.client.start()
        engine.backend.setSegments(FanoutProbe.payload(variant: 1), category: .content, forCookie: engine.cookie,
                                   projectToken: EngineUnderTest.project.token)
        let client = engine.client
        let hits = LockedBox(LatencyRecorder())
        let misses = LockedBox(LatencyRecorder())
        let failures = ManagedAtomic<Int>(0)
        let calls = ManagedAtomic<Int>(0)
        progress.say("\(threads) threads for \(Int(seconds)) s over \(options.transport.rawValue)")
        let hitsBefore = client.statistics.pullCacheHits
        let fetchesBefore = client.statistics.pullFetches
        let outcome = LoadGenerator.run(producers: threads, seconds: seconds, ratePerProducer: options.rate) { _, sequence in
            let force = sequence % 500 == 499
            let cachedBefore = client.statistics.pullCacheHits
            let start = monotonicNanoseconds()
            do {
                _ = try runBlocking { try await client.getSegments(category: .content, force: force) }
            } catch {
                failures.wrappingIncrement(ordering: .relaxed)
            }
            let elapsed = monotonicNanoseconds() - start
            calls.wrappingIncrement(ordering: .relaxed)
            // Counted as a hit when the cache-hit counter moved during the call (approximate under
            // concurrency, exact in total below).
            if client.statistics.pullCacheHits > cachedBefore { hits.withLock { $0.record(elapsed) } } else { misses.withLock { $0.record(elapsed) } }
        }
        let statistics = client.statistics
        let hitCount = statistics.pullCacheHits - hitsBefore
        let fetchCount = statistics.pullFetches - fetchesBefore
        let missCount = outcome.operations - hitCount
        let figures = [
            Figure(name: "pull.callsPerSecond", value: Double(outcome.operations) / seconds, unit: "ops/s", summary: "getSegments calls per second"),
            Figure(name: "pull.hitRatio", value: Double(hitCount) / Double(max(outcome.operations, 1)), unit: "ratio",
                   summary: "share of calls served from the cache"),
            Figure(name: "pull.requestsPerMiss", value: Double(fetchCount) / Double(max(missCount, 1)), unit: "ratio",
                   gate: .lowerIsBetter(relative: 0.5, absolute: 0.2),
                   summary: "fetches per call that missed the cache (< 1: concurrent misses share a fetch)"),
            Figure(name: "pull.failures", value: Double(failures.load(ordering: .relaxed)), unit: "count", gate: .zero,
                   summary: "getSegments calls that threw"),
        ]
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.asConfiguration.merging(["threads": "\(threads)", "duration": "\(seconds)", "cacheTTL": "50 ms"]) { $1 },
            figures: figures,
            latencies: [hits.withLock { $0 }.summary("cache hit", definition: "getSegments call served from the cache"),
                        misses.withLock { $0 }.summary("cache miss", definition: "getSegments call that waited for a fetch"),
                        engine.transport.fetchRoundTrip.summary("fetch round trip", definition: "transport fetch call")],
            allocationsMeasured: false, wallSeconds: Double(monotonicNanoseconds() - wallStart) / 1e9)
    }
}
