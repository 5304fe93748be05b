import Atomics
import Foundation
import RealtimeSegments

/// `pull`: getSegments under concurrency.
public struct PullScenario: Scenario {
    public init() {}
    public let name = "pull"
    public let honouredOptions: Set<BenchOptionName> = [.producers, .duration, .transport]
    public let needsMockIntrospection: String? = nil
    public let simulates = "C concurrent tasks calling getSegments (async form) in a loop: first against a warm cache, then forcing a refresh on every call"
    public let measures = "latency of cache hits and of misses, and requests per miss (single flight: concurrent misses share one fetch, so < 1)"

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let tasks = options.producers ?? 4
        let seconds = options.duration(default: 6)
        let engine = try EngineUnderTest.make(
            transport: options.transport, target: options.target, debounce: .seconds(60), engine: options.engine
        ) { configuration in
            configuration.cacheTTL = .seconds(3600)
        }
        defer { engine.shutdown() }
        engine.engine.start()
        // Against a target the customer's segments are whatever that server holds for a new cookie.
        engine.mockBackend?.setSegments(FanoutProbe.payload(variant: 1), category: .content, forCookie: engine.cookie,
                                        projectToken: EngineUnderTest.project.token)
        let client = engine.engine
        _ = try runBlocking { try await client.getSegments(category: .content) }

        progress.say("cache hits: \(tasks) tasks for \(String(format: "%.1f", seconds / 2)) s")
        let hitsBefore = client.counters
        let hits = try Self.hammer(client, tasks: tasks, seconds: seconds / 2, force: false)
        let hitsAfter = client.counters
        let transportFetchesBefore = engine.transport.fetchCount
        progress.say("misses (force): \(tasks) tasks for \(String(format: "%.1f", seconds / 2)) s over \(options.target?.description ?? options.transport.rawValue)")
        let misses = try Self.hammer(client, tasks: tasks, seconds: seconds / 2, force: true)
        let missesAfter = client.counters
        let fetches = missesAfter.pullFetches - hitsAfter.pullFetches
        // Counted at the transport, which sees every fetch whatever the engine counts.
        let transportFetches = engine.transport.fetchCount - transportFetchesBefore
        let figures = [
            Figure(name: "pull.hitCallsPerSecond", value: Double(hits.calls) / (seconds / 2), unit: "ops/s",
                   summary: "getSegments calls per second served from the cache"),
            Figure(name: "pull.hitRatioWarmCache", value: Double(hitsAfter.pullCacheHits - hitsBefore.pullCacheHits) / Double(max(hits.calls, 1)),
                   unit: "ratio", gate: .higherIsBetter(relative: 0, absolute: 0.01),
                   summary: "share of calls on a warm cache that the cache served (1.0 expected)"),
            Figure(name: "pull.requestsPerMiss", value: Double(fetches) / Double(max(misses.calls, 1)), unit: "ratio",
                   gate: .lowerIsBetter(relative: 0.5, absolute: 0.2),
                   summary: "fetches per forced call with \(tasks) concurrent callers (< 1: misses share one fetch)"),
            Figure(name: "pull.failures", value: Double(hits.failures + misses.failures), unit: "count", gate: .zero,
                   summary: "getSegments calls that threw"),
            // requestsPerMiss reads 0 too, an "improvement", when forced calls fetch nothing.
            Figure(name: "pull.forcedCallsWithoutAFetch", value: misses.calls > 0 && transportFetches == 0 ? 1 : 0, unit: "count",
                   gate: .zero,
                   summary: "1 if getSegments(force: true) was called and the transport saw no fetch: the cache answered what must be fetched"),
        ]
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["tasks": "\(tasks)", "duration": "\(seconds)"]) { $1 },
            figures: figures,
            latencies: [hits.latency.summary("cache hit", definition: "await getSegments served from the cache"),
                        misses.latency.summary("cache miss", definition: "await getSegments(force: true), waits for a (shared) fetch"),
                        engine.transport.fetchRoundTrip.summary("fetch round trip", definition: "transport fetch call")],
            allocationsMeasured: false)
    }

    /// `tasks` concurrent tasks calling getSegments until `seconds` pass.
    static func hammer(_ client: any BenchEngine, tasks: Int, seconds: Double, force: Bool) throws
        -> (latency: LatencyRecorder, calls: Int, failures: Int)
    {
        try runBlocking {
            let end = monotonicNanoseconds() + UInt64(seconds * 1e9)
            return await withTaskGroup(of: (LatencyRecorder, Int, Int).self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        var recorder = LatencyRecorder()
                        var calls = 0
                        var failures = 0
                        while monotonicNanoseconds() < end {
                            let start = monotonicNanoseconds()
                            do {
                                _ = try await client.getSegments(category: .content, force: force)
                            } catch {
                                failures += 1
                            }
                            recorder.record(monotonicNanoseconds() - start)
                            calls += 1
                        }
                        return (recorder, calls, failures)
                    }
                }
                var merged = LatencyRecorder()
                var calls = 0
                var failures = 0
                for await (recorder, taskCalls, taskFailures) in group {
                    merged.merge(recorder)
                    calls += taskCalls
                    failures += taskFailures
                }
                return (merged, calls, failures)
            }
        }
    }
}
