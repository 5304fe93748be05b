import RealtimeSegments

/// How the harness makes the ``BenchEngine`` a scenario drives: from the `SegmentsConfiguration`
/// it would give a `SegmentsClient` (its transport wrapped to measure, its settings tuned for the
/// scenario). A ``ScenarioRegistry`` holds one (``ScenarioRegistry/engine``); the command line
/// hands it to every run in ``BenchOptions/engine``.
///
/// Two factories are equal when their names are: the name is what the report records.
public struct BenchEngineFactory: Sendable, Hashable, CustomStringConvertible {
    /// The engine's name in reports (`SegmentsClient`); non-empty.
    public let name: String
    private let make: @Sendable (SegmentsConfiguration) throws -> any BenchEngine

    /// A factory named `name` that makes its engines with `make` (called on the scenario's
    /// thread, once per engine; it may throw to fail the run).
    public init(name: String, make: @escaping @Sendable (SegmentsConfiguration) throws -> any BenchEngine) {
        self.name = name
        self.make = make
    }

    /// A `SegmentsClient` (``SegmentsClientEngine``): the harness's default.
    public static let segmentsClient = BenchEngineFactory(name: "SegmentsClient") { configuration in
        SegmentsClientEngine(SegmentsClient(configuration: configuration))
    }

    /// Whether this is ``segmentsClient``.
    public var isDefault: Bool { name == Self.segmentsClient.name }

    /// An engine over `configuration`, not started.
    public func makeEngine(_ configuration: SegmentsConfiguration) throws -> any BenchEngine { try make(configuration) }

    public var description: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
