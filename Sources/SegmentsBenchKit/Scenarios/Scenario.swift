/// One benchmark scenario: what it simulates, what it measures, which options it honours, and how
/// to run it. A package adds its own to a ``ScenarioRegistry``.
public protocol Scenario: Sendable {
    /// The name used on the command line (`tracking-storm`, ...).
    var name: String { get }
    /// What it simulates.
    var simulates: String { get }
    /// What it measures.
    var measures: String { get }
    /// The options of ``BenchOptions`` its `run` reads (besides `quick` and `thresholds`, which
    /// every scenario accepts: ``SuiteRunner`` judges the thresholds). The command line refuses
    /// any other option for this scenario, and the report records only these.
    var honouredOptions: Set<BenchOptionName> { get }
    /// The options its `run` reads against a ``BenchOptions/target``, where the server's own
    /// behaviour takes the place of what an option sets for the in-process mock (the faults'
    /// seed); the command line refuses the others there. Defaults to ``honouredOptions``.
    var honouredOptionsAgainstTarget: Set<BenchOptionName> { get }
    /// What the scenario needs from the in-process mock that a server reached over HTTP does not
    /// offer (scripted segment changes, change stamps, fault plans, the backend's counters), in
    /// words; `nil` when it runs against a ``BenchOptions/target`` as well. A scenario that needs
    /// something is refused a target (the command line exits 64 naming it). The default needs the
    /// mock: a scenario runs against a target only once it says so.
    var needsMockIntrospection: String? { get }
    /// What the scenario needs of `SegmentsClient` itself that ``BenchEngine`` does not offer (its
    /// delivery modes, qualified or reporting API, a client of its own …), in words; `nil` when
    /// it drives the engine only through ``BenchEngine`` (``EngineUnderTest/engine``, made by
    /// ``BenchOptions/engine``) or drives no engine. A scenario that needs something is refused an
    /// engine other than `SegmentsClient` (the command line exits 64 naming it). Defaults to `nil`.
    var needsSegmentsClient: String? { get }
    /// A tool the scenario runs that this machine lacks, in words with how to install it; `nil`
    /// when it has everything (the default). The default suite skips such a scenario with a note;
    /// `run`, `ci` and `baseline update` run it anyway, so it fails there (a gate does not pass
    /// on figures nobody measured).
    var missingTool: String? { get }
    /// The shortest `--duration` the scenario can measure anything in, in seconds, and why, or
    /// `nil` when any duration works (the default). A shorter `--duration` is refused.
    var shortestDuration: (seconds: Double, reason: String)? { get }
    /// Runs once with `options`, reporting progress for anything longer than a few seconds.
    /// Blocks the calling thread (a plain thread, not a Swift concurrency task): the engine's own
    /// tasks need the cooperative pool free.
    func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult
}

extension Scenario {
    public var needsMockIntrospection: String? { "the in-process mock backend (it does not declare that it runs against a target)" }
    public var needsSegmentsClient: String? { nil }
    public var missingTool: String? { nil }
    public var shortestDuration: (seconds: Double, reason: String)? { nil }
    public var honouredOptionsAgainstTarget: Set<BenchOptionName> { honouredOptions }

    /// The options it honours with `options`: ``honouredOptionsAgainstTarget`` against a target,
    /// else ``honouredOptions``, and `--threshold`, which every scenario takes.
    public func honouredOptions(with options: BenchOptions) -> Set<BenchOptionName> {
        // Against a target the traffic goes to it: --transport is refused whatever the scenario.
        (options.target == nil ? honouredOptions : honouredOptionsAgainstTarget.subtracting([.transport])).union([.threshold])
    }

    /// Why this scenario cannot run with `options`, or `nil` when it can: a target given to a
    /// scenario that needs the mock, an engine other than `SegmentsClient` given to one that
    /// does not drive any engine, or a `--duration` below ``shortestDuration``.
    public func refusal(of options: BenchOptions) -> String? {
        if let duration = options.duration, let shortest = shortestDuration, duration < shortest.seconds {
            func seconds(_ value: Double) -> String { value == value.rounded() ? "\(Int(value))" : "\(value)" }
            return "scenario '\(name)' needs --duration of at least \(seconds(shortest.seconds)) seconds, not "
                + "\(seconds(duration)): \(shortest.reason)"
        }
        if let target = options.target, let needs = needsMockIntrospection {
            return "scenario '\(name)' cannot run against --target \(target.description): it needs \(needs)"
        }
        if !options.engine.isDefault, let needs = needsSegmentsClient {
            return "scenario '\(name)' cannot drive the engine '\(options.engine.name)': it needs SegmentsClient's \(needs)"
        }
        return nil
    }

    /// The options in `given` that this scenario does not honour (against a target when
    /// `againstTarget`); never `--threshold`, which every scenario takes.
    public func unhonoured(_ given: Set<BenchOptionName>, againstTarget: Bool = false) -> Set<BenchOptionName> {
        given.subtracting(againstTarget ? honouredOptionsAgainstTarget : honouredOptions).subtracting([.threshold])
    }
}
