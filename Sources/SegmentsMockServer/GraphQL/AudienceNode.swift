/// One audience in a qualified-segments answer: the source value of the GraphQL `Audience` (and of
/// the `AudienceEdge` that wraps it, which carries nothing else).
struct AudienceNode: Sendable, Hashable {
    /// The wire value of `state` for an audience the user is in.
    static let qualified = "qualified"
    /// The wire value of `state` for an audience the user is not in.
    static let notQualified = "not_qualified"

    /// The audience (segment id).
    var name: String
    /// ``qualified`` or ``notQualified``.
    var state: String

    /// The `description` field: the mock has no descriptions of its own, so it says where the
    /// audience comes from (ODP answers a human-written text that clients ignore).
    var description: String { "mock audience \(name)" }
}
