/// Which faults each endpoint suffers, and the seed that makes them reproducible.
///
/// Each endpoint draws from its own random stream derived from ``seed``, in the order its requests
/// arrive; so the same seed and the same sequence of requests per endpoint give the same faults,
/// whatever the timing. Endpoints without a profile behave normally.
public struct FaultPlan: Sendable, Hashable {
    /// The seed of every endpoint's random stream.
    public var seed: UInt64
    /// The fault profile per endpoint; a missing endpoint has no faults.
    public var profiles: [MockEndpoint: FaultProfile]

    /// Creates a plan.
    public init(seed: UInt64 = 0, profiles: [MockEndpoint: FaultProfile] = [:]) {
        self.seed = seed
        self.profiles = profiles
    }

    /// A plan where every endpoint suffers the same `profile`.
    public static func everyEndpoint(_ profile: FaultProfile, seed: UInt64 = 0) -> FaultPlan {
        FaultPlan(seed: seed, profiles: Dictionary(uniqueKeysWithValues: MockEndpoint.allCases.map { ($0, profile) }))
    }

    /// No faults anywhere.
    public static let none = FaultPlan()

    /// The profile of `endpoint` (``FaultProfile/none`` when it has none).
    public subscript(endpoint: MockEndpoint) -> FaultProfile { profiles[endpoint] ?? .none }
}
