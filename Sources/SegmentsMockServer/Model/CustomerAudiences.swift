/// What the qualified-segments endpoint knows about one customer, read atomically under the
/// backend's lock: the audiences the project knows, in server order, and those the customer is in.
///
/// A value snapshot: GraphQL resolvers filter it after the lock is released, so a membership
/// change racing a query shows up entirely or not at all.
struct CustomerAudiences: Sendable, Hashable {
    /// Every audience the project knows for this customer, in server order, each once.
    var known: [String]
    /// The audiences (segment ids) the customer currently qualifies for.
    var qualified: Set<String>
}
