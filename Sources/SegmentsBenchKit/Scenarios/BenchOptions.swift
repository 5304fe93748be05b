/// Options of a scenario run; `nil` means the scenario's own default.
public struct BenchOptions: Sendable, Codable, Hashable {
    /// Which transport the engine uses.
    public enum Transport: String, Sendable, Codable, CaseIterable {
        /// Direct calls into the mock backend: isolates the engine.
        case memory
        /// Real HTTP/1.1 to the mock server on 127.0.0.1: end to end.
        case http
    }

    /// Number of registered callbacks (or the largest of a sweep).
    public var callbacks: Int?
    /// Producer threads calling `trackEvent`.
    public var producers: Int?
    /// Target events per second per producer (fleet: across the whole fleet); `nil` is each
    /// scenario's default (tracking-storm: flat out). With a rate, latencies are
    /// corrected for coordinated omission.
    public var rate: Double?
    /// Seconds the load runs.
    public var duration: Double?
    /// Customer switches per second (identify/anonymize churn).
    public var switchRate: Double?
    /// The engine's transport.
    public var transport: Transport = .memory
    /// The engine's debounce in seconds.
    public var debounce: Double?
    /// Seed of every random choice (fault plans, switch kinds).
    public var seed: UInt64 = 1
    /// Simulated devices (clients in one process).
    public var devices: Int?
    /// A target rate over time, instead of `rate` and `duration` (see ``LoadStages``).
    public var stages: LoadStages?
    /// Limits on the run's latencies and figures, each judged on its own scenario's result; a run
    /// that misses one fails (see ``RunThreshold``). ``SuiteRunner`` judges them, so every
    /// scenario takes them.
    public var thresholds: [RunThreshold]?
    /// Milliseconds the in-process mock waits before it answers a segments fetch (fleet), so that
    /// customer switches overlap fetches in flight; `nil` is the scenario's default.
    public var fetchDelayMs: Double?
    /// Milliseconds of the client's `deliverySpinWindow` in the runs that measure one
    /// (`fanout-sweep`, `peers`); `nil` is ``FanoutProbe/spinWindow``. More than 0 and at most 10
    /// (the engine's largest window).
    public var spinWindowMs: Double?
    /// Shorter runs for the CI gate.
    public var quick = false
    /// A server to drive instead of the in-process mock (`--target`); `nil` is the mock. Only
    /// scenarios whose ``Scenario/needsMockIntrospection`` is `nil` run against one, over HTTP.
    /// Not encoded: it holds credentials.
    public var target: BenchTarget? = nil
    /// The engine the scenarios drive (through ``BenchEngine``); `SegmentsClient` unless a
    /// ``ScenarioRegistry`` names another, which scenarios that need `SegmentsClient` itself
    /// (``Scenario/needsSegmentsClient``) refuse. Not encoded: the report's
    /// configuration names it.
    public var engine: BenchEngineFactory = .segmentsClient

    private enum CodingKeys: String, CodingKey {
        case callbacks, producers, rate, duration, switchRate, transport, debounce, seed, quick
    }

    /// Creates options with every default.
    public init() {}

    /// `--duration`, or the scenario's default (a third of it with `--quick`).
    public func duration(default value: Double) -> Double { duration ?? (quick ? value / 3 : value) }

    /// The engine's debounce: `--debounce` seconds, else `value` seconds, to the nanosecond.
    public func debounce(default value: Double) -> Duration {
        .nanoseconds(Int64(((debounce ?? value) * 1e9).rounded()))
    }

    /// The options as report configuration text: `quick`, then each option in `honoured` that has a
    /// value (`transport` and `seed` always do), `target` (its URL, not its credentials) when there
    /// is one, and `engine` (its name) when it is not `SegmentsClient`. An option the scenario does
    /// not honour is left out, so that the report shows only what shaped the run.
    public func configuration(honouring honoured: Set<BenchOptionName>) -> [String: String] {
        var configuration = ["quick": "\(quick)"]
        if let target { configuration["target"] = target.description }
        if !engine.isDefault { configuration["engine"] = engine.name }
        for name in honoured {
            let value: String? =
                switch name {
                case .callbacks: callbacks.map { "\($0)" }
                case .producers: producers.map { "\($0)" }
                case .rate: rate.map { "\($0)" }
                case .duration: duration.map { "\($0)" }
                case .switchRate: switchRate.map { "\($0)" }
                case .transport: target == nil ? transport.rawValue : Transport.http.rawValue
                case .debounce: debounce.map { "\($0)" }
                case .seed: "\(seed)"
                case .devices: devices.map { "\($0)" }
                case .stages: stages.map(\.description)
                // Each scenario's own, recorded as they are judged (``ScenarioResult/judge(_:)``).
                case .threshold: nil
                // A target answers as it does: the mock's delay plays no part there.
                case .fetchDelayMs: target == nil ? fetchDelayMs.map { "\($0)" } : nil
                case .spinWindowMs: spinWindowMs.map { "\($0)" }
                }
            if let value { configuration[name.rawValue] = value }
        }
        return configuration
    }
}
