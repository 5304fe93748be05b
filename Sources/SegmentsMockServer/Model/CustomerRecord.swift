import RealtimeSegments

/// Everything the backend keeps about one customer. Owned by ``ProjectStore`` (behind the backend's
/// lock); never escapes it except as a ``MockCustomer`` snapshot.
struct CustomerRecord: Sendable {
    let key: UInt64
    /// Linked cookies, the oldest still linked first (that one is the primary cookie).
    var cookies: [String] = []
    /// Hard ids by name: a customer has at most one value per id name.
    var externalIds: [String: String] = [:]
    var properties: [String: JSONValue] = [:]
    var eventCount = 0
    var eventCountsByType: [String: Int] = [:]
    var recentEvents = RecentEvents()
    /// Per rule (by index in the backend's rule list): events counted towards entering since the
    /// rule was added or since the customer last left. Shorter than the rule list means 0.
    var ruleProgress: [Int] = []
    /// Per rule: whether the customer is in the rule's segment. Shorter than the rule list means no.
    var ruleMembership: [Bool] = []
    /// Lists set by `setSegments`, overriding the rules for their category.
    var scripted: [SegmentCategory: [Segment]] = [:]
    /// The lists last published per category (what a fetch returns); a missing key means `[]`.
    var published: [SegmentCategory: [Segment]] = [:]
    /// The latest change per category.
    var lastChanges: [SegmentCategory: MembershipChange] = [:]

    init(key: UInt64) { self.key = key }

    /// The primary cookie, or `""` for a customer known only by hard ids.
    var primaryCookie: String { cookies.first ?? "" }

    /// Grows the per-rule arrays to `ruleCount` entries (rules added after the customer).
    mutating func ensureRuleSlots(_ ruleCount: Int) {
        if ruleProgress.count < ruleCount {
            ruleProgress.append(contentsOf: repeatElement(0, count: ruleCount - ruleProgress.count))
            ruleMembership.append(contentsOf: repeatElement(false, count: ruleCount - ruleMembership.count))
        }
    }

    /// A public snapshot.
    var snapshot: MockCustomer {
        MockCustomer(
            customerKey: key, cookies: cookies, externalIds: externalIds, properties: properties,
            eventCount: eventCount, eventCountsByType: eventCountsByType)
    }
}
