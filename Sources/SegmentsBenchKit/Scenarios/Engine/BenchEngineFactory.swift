import RealtimeSegments

/// How the harness makes the ``BenchEngine`` a scenario drives: from the `SegmentsConfiguration`
/// it would give a `SegmentsClient` (its transport wrapped to measure, its settings tuned for the
/// scenario). A ``ScenarioRegistry`` holds one (``ScenarioRegistry/engine``); the command line
/// hands it to every run in ``BenchOptions/engine``.
///
/// Two factories are equal when their names are and both are, or neither is, ``segmentsClient``:
/// the name is what the report records.
public struct BenchEngineFactory: Sendable, Hashable, CustomStringConvertible {
    /// The engine's name in reports (`SegmentsClient`); non-empty.
    public let name: String
    private let make: @Sendable (SegmentsConfiguration) throws -> any BenchEngine
    /// Set only on ``segmentsClient``: a factory of a package's own is never taken for it, whatever its name.
    private let isBuiltIn: Bool

    /// A factory named `name` that makes its engines with `make` (called on the scenario's
    /// thread, once per engine; it may throw to fail the run).
    public init(name: String, make: @escaping @Sendable (SegmentsConfiguration) throws -> any BenchEngine) {
        self.init(name: name, isBuiltIn: false, make: make)
    }

    private init(name: String, isBuiltIn: Bool, make: @escaping @Sendable (SegmentsConfiguration) throws -> any BenchEngine) {
        self.name = name
        self.make = make
        self.isBuiltIn = isBuiltIn
    }

    /// A `SegmentsClient` (``SegmentsClientEngine``): the harness's default.
    public static let segmentsClient = BenchEngineFactory(name: "SegmentsClient", isBuiltIn: true) { configuration in
        SegmentsClientEngine(SegmentsClient(configuration: configuration))
    }

    /// Whether this is ``segmentsClient``.
    public var isDefault: Bool { isBuiltIn }

    /// An engine over `configuration`, not started.
    public func makeEngine(_ configuration: SegmentsConfiguration) throws -> any BenchEngine { try make(configuration) }

    public var description: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.isBuiltIn == rhs.isBuiltIn }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(isBuiltIn)
    }
}
