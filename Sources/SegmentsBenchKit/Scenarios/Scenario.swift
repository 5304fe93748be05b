/// One benchmark scenario: what it simulates, what it measures, which options it honours, and how
/// to run it. A package adds its own to a ``ScenarioRegistry``.
public protocol Scenario: Sendable {
    /// The name used on the command line (`tracking-storm`, ...).
    var name: String { get }
    /// What it simulates.
    var simulates: String { get }
    /// What it measures.
    var measures: String { get }
    /// The options of ``BenchOptions`` its `run` reads (besides `quick`, which every scenario
    /// accepts). The command line refuses any other option for this scenario, and the report
    /// records only these.
    var honouredOptions: Set<BenchOptionName> { get }
    /// Runs once with `options`, reporting progress for anything longer than a few seconds.
    /// Blocks the calling thread (a plain thread, not a Swift concurrency task): the engine's own
    /// tasks need the cooperative pool free.
    func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult
}

extension Scenario {
    /// The options in `given` that this scenario does not honour.
    public func unhonoured(_ given: Set<BenchOptionName>) -> Set<BenchOptionName> {
        given.subtracting(honouredOptions)
    }
}
