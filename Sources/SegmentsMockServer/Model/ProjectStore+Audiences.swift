import RealtimeSegments

/// The qualified-segments view of a project (SPEC §9): who a user id is, and which audiences exist.
///
/// A user id is a hard id: `customer(fs_user_id: "u1")` is the customer whose external ids include
/// `fs_user_id` = `u1`, `customer(vuid: "vuid_1")` the one with `vuid` = `vuid_1`. Those ids are set
/// like any other hard id (tracked events, customer updates, link-ids) or by
/// ``SegmentsBackend/identifyQualifiedUser(_:key:cookie:projectToken:)``.
///
/// An audience is a segment id. The customer qualifies for an audience when a segment with that id
/// is in one of its current published lists (any category): exactly what the segments endpoint
/// answers, so rule-driven and scripted changes show up in both.
extension ProjectStore {
    /// The audiences of the customer with `key` = `value`, or `nil` when no customer has that id.
    ///
    /// Server order: the declared audiences in declaration order, then the segment of every rule
    /// (rule order), then the customer's other current segments (categories by name, list order);
    /// each audience once.
    func audiences(userKey: QualifiedUserKey, userValue: String, rules: RuleBook) -> CustomerAudiences? {
        guard let customerKey = key(forExternalId: userKey.rawValue, value: userValue),
            let customer = customers[customerKey]
        else { return nil }
        return audiences(of: customer, rules: rules)
    }

    /// The audiences of `customer`, in the server order documented on
    /// ``audiences(userKey:userValue:rules:)``.
    func audiences(of customer: CustomerRecord, rules: RuleBook) -> CustomerAudiences {
        var qualified = Set<String>()
        for segments in customer.published.values {
            for segment in segments { qualified.insert(segment.id) }
        }
        var known: [String] = []
        known.reserveCapacity(declaredAudiences.count + rules.count + qualified.count)
        var seen = Set<String>()
        for name in declaredAudiences where seen.insert(name).inserted { known.append(name) }
        for rule in rules.rules where seen.insert(rule.segment.id).inserted { known.append(rule.segment.id) }
        // Usually every current segment is a rule's or a declared one; only scripted extras are left.
        if !qualified.isSubset(of: seen) {
            for category in customer.published.keys.sorted(by: { $0.name < $1.name }) {
                for segment in customer.published[category] ?? [] where seen.insert(segment.id).inserted {
                    known.append(segment.id)
                }
            }
        }
        return CustomerAudiences(known: known, qualified: qualified)
    }
}
