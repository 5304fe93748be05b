/// One benchmark scenario: what it simulates, what it measures, and how to run it.
public protocol Scenario: Sendable {
    /// The name used on the command line (`tracking-storm`, ...).
    var name: String { get }
    /// What it simulates.
    var simulates: String { get }
    /// What it measures.
    var measures: String { get }
    /// Runs once with `options`, reporting progress for anything longer than a few seconds.
    /// Blocks the calling thread (a plain thread, not a Swift concurrency task): the engine's own
    /// tasks need the cooperative pool free.
    func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult
}

/// Every scenario, in the order the default suite runs them.
public enum ScenarioCatalog {
    public static let all: [any Scenario] = [
        TrackingStormScenario(),
        HotPathScenario(),
        CustomerSwitchScenario(),
        FanoutSweepScenario(),
        PeersScenario(),
        PullScenario(),
        QualifiedScenario(),
        ReportingScenario(),
        FaultsScenario(),
        SoakScenario(),
        CostsScenario(),
    ]

    /// The scenario named `name`.
    public static func named(_ name: String) -> (any Scenario)? { all.first { $0.name == name } }
}
