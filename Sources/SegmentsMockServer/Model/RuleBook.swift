import RealtimeSegments

/// The segment rules, indexed for the per-event evaluation: which rules an event type touches and
/// which rules feed a category. Rules are identified by their index in ``rules``.
///
/// Not thread-safe: a value owned by ``BackendState``.
struct RuleBook: Sendable {
    private(set) var rules: [SegmentRule] = []
    /// Every category some rule names, in the order the first such rule was added.
    private(set) var categories: [SegmentCategory] = []
    private var byEventType: [String: [Int]] = [:]
    private var byCategory: [SegmentCategory: [Int]] = [:]

    var count: Int { rules.count }

    mutating func add(_ rule: SegmentRule) {
        let index = rules.count
        rules.append(rule)
        byEventType[rule.entersAfter.eventType, default: []].append(index)
        if let leave = rule.leavesOn, leave != rule.entersAfter.eventType {
            byEventType[leave, default: []].append(index)
        }
        if byCategory[rule.category] == nil { categories.append(rule.category) }
        byCategory[rule.category, default: []].append(index)
    }

    /// The rules an event of `eventType` enters or leaves, in rule order.
    func indices(forEventType eventType: String) -> [Int] { byEventType[eventType] ?? [] }

    /// The segments of `category` whose rules `isMember` says the customer is in: rule order, each
    /// segment once.
    func segments(in category: SegmentCategory, isMember: (Int) -> Bool) -> [Segment] {
        var seen = Set<Segment>()
        var result: [Segment] = []
        for index in byCategory[category] ?? [] where isMember(index) {
            let segment = rules[index].segment
            if seen.insert(segment).inserted { result.append(segment) }
        }
        return result
    }
}
