import Atomics
import Foundation
import RealtimeSegments
import SegmentsMockServer

/// `qualified`: Optimizely-style qualified segments (SPEC §9) over loopback HTTP against the mock
/// server's GraphQL endpoint.
public struct QualifiedScenario: Scenario {
    public init() {}
    public let name = "qualified"
    public let honouredOptions: Set<BenchOptionName> = [.callbacks, .seed]
    public let needsMockIntrospection: String? = "the mock backend's audiences and memberships set per user and its count of GraphQL requests"
    public let needsSegmentsClient: String? = "qualified-segments API (user contexts)"
    public let simulates = "N users fetching qualified segments over HTTP (GraphQL) through the LRU cache (100 entries): cold misses, warm hits, a skewed mix over more users than the cache holds, and bursts of 50 concurrent fetches for one new user"
    public let measures = "latency of hits and misses, hit ratio of the skewed mix, requests per burst of concurrent misses (single flight: 1), failures (must be 0)"

    /// Audiences every user is asked about.
    static let audiences = (0..<5).map { objectId(high: 0, low: UInt32(0xA0D1E + $0)) }

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let users = options.callbacks ?? (options.quick ? 300 : 1_000)
        let cacheSize = 100
        let engine = try EngineUnderTest.make(transport: .http, debounce: .seconds(60)) { configuration in
            configuration.qualifiedSegments = QualifiedSegmentsConfiguration(
                apiKey: EngineUnderTest.project.apiKey, segmentsToCheck: Self.audiences, cacheSize: cacheSize)
        }
        defer { engine.shutdown() }
        let backend = engine.backend
        let token = EngineUnderTest.project.token
        /// The audiences `user` is in: every third user is in the first, every fifth in the second.
        func expected(_ user: Int) -> [String] {
            (user % 3 == 0 ? [Self.audiences[0]] : []) + (user % 5 == 0 ? [Self.audiences[1]] : [])
        }
        _ = backend.setAudiences(Self.audiences, projectToken: token)
        for user in 0..<users + 64 {
            _ = backend.identifyQualifiedUser("user-\(user)", cookie: "cookie-\(user)", projectToken: token)
            let segments = expected(user).map { Segment(id: $0, segmentationId: $0) }
            backend.setSegments(segments, category: .discovery, forCookie: "cookie-\(user)", projectToken: token)
        }
        let client = engine.client
        var failures = 0
        var wrongAnswers = 0

        // Cold misses, one at a time: each goes to the server.
        let coldUsers = min(cacheSize, users)
        progress.say("\(coldUsers) cold misses over HTTP")
        var misses = LatencyRecorder()
        let requestsBeforeCold = backend.requestCount(.qualifiedSegments)
        let contexts = try (0..<users).map { try client.createUserContext(userId: "user-\($0)") }
        for user in 0..<coldUsers {
            let start = monotonicNanoseconds()
            // A failed fetch leaves the segments nil: counted as a failure, not also as a wrong answer.
            do {
                try contexts[user].fetchQualifiedSegmentsAndWait()
                if contexts[user].qualifiedSegments != expected(user) { wrongAnswers += 1 }
            } catch { failures += 1 }
            misses.record(monotonicNanoseconds() - start)
        }
        let coldRequests = backend.requestCount(.qualifiedSegments) - requestsBeforeCold

        // Warm hits: the same users again, served from the cache on the caller's thread.
        let hitCalls = options.quick ? 50_000 : 200_000
        progress.say("\(hitCalls) warm hits")
        var hits = LatencyRecorder()
        let requestsBeforeHits = backend.requestCount(.qualifiedSegments)
        for call in 0..<hitCalls {
            let context = contexts[call % coldUsers]
            let start = monotonicNanoseconds()
            do { try context.fetchQualifiedSegmentsAndWait() } catch { failures += 1 }
            hits.record(monotonicNanoseconds() - start)
        }
        let hitRequests = backend.requestCount(.qualifiedSegments) - requestsBeforeHits

        // A skewed mix over more users than the cache holds: 80% of calls go to 20% of the users.
        let mixCalls = options.quick ? 3_000 : 10_000
        progress.say("\(mixCalls) calls, 80/20 over \(users) users, cache \(cacheSize)")
        var random = SplitMix64(seed: options.seed)
        let hot = max(1, users / 5)
        let cold = users - hot  // none with a single user: every call then goes to it
        let requestsBeforeMix = backend.requestCount(.qualifiedSegments)
        for _ in 0..<mixCalls {
            let user = cold == 0 || random.next() % 10 < 8
                ? Int(random.next() % UInt64(hot)) : hot + Int(random.next() % UInt64(cold))
            do {
                try contexts[user].fetchQualifiedSegmentsAndWait()
                if contexts[user].qualifiedSegments != expected(user) { wrongAnswers += 1 }
            } catch { failures += 1 }
        }
        let mixRequests = backend.requestCount(.qualifiedSegments) - requestsBeforeMix

        // Bursts: 50 threads fetch one new user at once.
        let bursts = options.quick ? 4 : 16
        progress.say("\(bursts) bursts of 50 concurrent fetches for one new user")
        let requestsBeforeBursts = backend.requestCount(.qualifiedSegments)
        var burstLatency = LatencyRecorder()
        for burst in 0..<bursts {
            let user = users + burst
            let outcome = try Self.burst(client: client, userId: "user-\(user)", callers: 50, expected: expected(user))
            failures += outcome.failures
            wrongAnswers += outcome.wrong
            burstLatency.merge(outcome.latency)
        }
        let burstRequests = backend.requestCount(.qualifiedSegments) - requestsBeforeBursts

        let hitLatency = hits.summary("cache hit", definition: "fetchQualifiedSegmentsAndWait served from the LRU cache")
        let missLatency = misses.summary(
            "cache miss (HTTP)", definition: "fetchQualifiedSegmentsAndWait that goes to the mock GraphQL endpoint")
        let figures = [
            Figure(name: "qualified.coldRequestsPerMiss", value: Double(coldRequests) / Double(max(coldUsers, 1)), unit: "ratio",
                   summary: "requests per cold miss, one caller at a time (1 expected)"),
            Figure(name: "qualified.warmHitRequests", value: Double(hitRequests), unit: "count", gate: .zero,
                   summary: "requests made while fetching users that are in the cache (0 expected)"),
            Figure(name: "qualified.skewedHitRatio", value: 1 - Double(mixRequests) / Double(mixCalls), unit: "ratio",
                   gate: .higherIsBetter(relative: 0.1, absolute: 0.02),
                   summary: "share of calls served by the cache, 80/20 access over \(users) users with a cache of \(cacheSize)"),
            Figure(name: "qualified.requestsPerBurst", value: Double(burstRequests) / Double(bursts), unit: "count",
                   gate: .lowerIsBetter(relative: 0, absolute: 0),
                   summary: "requests per burst of 50 concurrent fetches for one new user (single flight: 1; without it: 50)"),
            Figure(name: "qualified.failures", value: Double(failures), unit: "count", gate: .zero,
                   summary: "fetches that threw"),
            Figure(name: "qualified.wrongAnswers", value: Double(wrongAnswers), unit: "count", gate: .zero,
                   summary: "fetches whose qualified segments differ from the user's memberships on the server"),
            Figure(name: "qualified.hitP50Ns", value: Double(hitLatency.p50), unit: "ns", restates: hitLatency.comparedName("p50", in: name),
                   summary: "fetch served from the cache, p50"),
            Figure(name: "qualified.missP50Ns", value: Double(missLatency.p50), unit: "ns", restates: missLatency.comparedName("p50", in: name),
                   summary: "fetch that goes to the server over loopback HTTP (GraphQL parse and execution included), p50"),
        ]
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(
                ["users": "\(users)", "cacheSize": "\(cacheSize)", "transport": "http", "audiences": "\(Self.audiences.count)"]) { $1 },
            figures: figures,
            latencies: [
                hitLatency,
                missLatency,
                burstLatency.summary("burst of 50 (HTTP)", definition: "each of 50 concurrent fetches for one new user, sharing one request"),
            ],
            allocationsMeasured: false)
    }

    /// `callers` threads fetch `userId` at the same moment.
    static func burst(client: SegmentsClient, userId: String, callers: Int, expected: [String]) throws
        -> (latency: LatencyRecorder, failures: Int, wrong: Int)
    {
        let contexts = try (0..<callers).map { _ in try client.createUserContext(userId: userId) }
        let results = LockedBox<[(UInt64, Bool, Bool)]>([])
        let ready = ManagedAtomic<Int>(0)
        let group = DispatchGroup()
        for context in contexts {
            group.enter()
            Thread {
                ready.wrappingIncrement(ordering: .acquiringAndReleasing)
                while ready.load(ordering: .acquiring) < callers { sched_yield() }
                let start = monotonicNanoseconds()
                let failed = (try? context.fetchQualifiedSegmentsAndWait()) == nil
                let elapsed = monotonicNanoseconds() - start
                results.withLock { $0.append((elapsed, failed, context.qualifiedSegments != expected)) }
                group.leave()
            }.start()
        }
        group.wait()
        var latency = LatencyRecorder()
        var failures = 0
        var wrong = 0
        for (elapsed, failed, isWrong) in results.withLock({ $0 }) {
            latency.record(elapsed)
            if failed { failures += 1 } else if isWrong { wrong += 1 }
        }
        return (latency, failures, wrong)
    }
}
