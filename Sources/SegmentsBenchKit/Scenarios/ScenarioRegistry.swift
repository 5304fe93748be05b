/// The scenarios a harness runs, in the order the default suite runs them: the built-in ones,
/// then those a package registers. What `list`, `run`, the default suite and the gate see.
///
/// A value type: registering changes this copy only. Names are unique.
public struct ScenarioRegistry: Sendable {
    /// Every scenario, in registration order.
    public private(set) var scenarios: [any Scenario]
    /// The engine the scenarios measure: `SegmentsClient` (``BenchEngineFactory/segmentsClient``)
    /// unless set. The command line passes it to every run in ``BenchOptions/engine``; scenarios
    /// that need `SegmentsClient` itself (``Scenario/needsSegmentsClient``) then refuse to run.
    public var engine: BenchEngineFactory = .segmentsClient

    /// A registry holding the built-in scenarios (``builtIn``), or none when `builtIns` is false.
    public init(builtIns: Bool = true) {
        scenarios = builtIns ? Self.builtIn : []
    }

    /// The built-in scenarios, in the order the default suite runs them.
    public static var builtIn: [any Scenario] {
        [
            TrackingStormScenario(),
            HotPathScenario(),
            CustomerSwitchScenario(),
            FanoutSweepScenario(),
            PeersScenario(),
            PullScenario(),
            QualifiedScenario(),
            ReportingScenario(),
            FaultsScenario(),
            CrashScenario(),
            SoakScenario(),
            FleetScenario(),
            CostsScenario(),
        ]
    }

    /// Adds `scenario` after those already registered.
    /// - Throws: ``ScenarioRegistryError/duplicateName(_:)`` when a scenario of that name is
    ///   registered already, ``ScenarioRegistryError/invalidName(_:)`` when the name is empty,
    ///   holds whitespace or starts with `-` (it could not be typed after `run`), or holds `.`
    ///   (which ends a scenario's part of a figure's name).
    public mutating func register(_ scenario: any Scenario) throws {
        let name = scenario.name
        // A figure's scenario is the part of its name before the first dot (`tracking-storm.lostEvents`).
        guard !name.isEmpty, !name.hasPrefix("-"), !name.contains(where: \.isWhitespace), !name.contains(".") else {
            throw ScenarioRegistryError.invalidName(name)
        }
        guard self.named(name) == nil else { throw ScenarioRegistryError.duplicateName(name) }
        scenarios.append(scenario)
    }

    /// The scenario named `name`, if registered.
    public func named(_ name: String) -> (any Scenario)? { scenarios.first { $0.name == name } }

    /// The registered names, in order.
    public var names: [String] { scenarios.map(\.name) }
}

/// Why ``ScenarioRegistry/register(_:)`` refused a scenario.
public enum ScenarioRegistryError: Error, Equatable, CustomStringConvertible {
    /// A scenario of this name is registered already.
    case duplicateName(String)
    /// The name cannot be given on the command line, or holds a dot (which ends a scenario's part
    /// of a figure's name).
    case invalidName(String)

    public var description: String {
        switch self {
        case .duplicateName(let name):
            "a scenario named '\(name)' is registered already; each scenario needs a name of its own"
        case .invalidName(let name):
            "'\(name)' cannot name a scenario: use a non-empty name without whitespace or '.' that does not start with '-'"
        }
    }
}
