/// How many faults of each kind were injected per endpoint: what tests and the harness check to
/// know what the client actually went through.
public struct FaultCounts: Sendable, Hashable {
    private var counts: [MockEndpoint: [FaultKind: Int]] = [:]

    /// No faults counted.
    public init() {}

    /// The number of `kind` faults injected on `endpoint`.
    public subscript(endpoint: MockEndpoint, kind: FaultKind) -> Int {
        get { counts[endpoint]?[kind] ?? 0 }
        set { counts[endpoint, default: [:]][kind] = newValue }
    }

    /// The number of `kind` faults injected on all endpoints together.
    public func total(_ kind: FaultKind) -> Int {
        counts.values.reduce(0) { $0 + ($1[kind] ?? 0) }
    }

    /// The number of faults of every kind on all endpoints together.
    public var total: Int {
        counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }
    }
}
