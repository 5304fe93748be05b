import RealtimeSegments

/// How tracked events, scripted lists and rule changes turn into published segment lists and
/// stamped changes.
extension ProjectStore {
    /// Stores `event` for its customer and evaluates the rules it touches.
    mutating func track(_ event: TrackedEvent, rules: RuleBook, ledger: inout ChangeLedger, nextKey: inout UInt64) {
        let key = resolve(event.customerIds, nextKey: &nextKey)
        let token = project.token
        modifyCustomer(key) { customer in
            customer.eventCount += 1
            customer.eventCountsByType[event.eventType, default: 0] += 1
            customer.recentEvents.append(event)
            customer.ensureRuleSlots(rules.count)
            var touched: [SegmentCategory] = []
            for index in rules.indices(forEventType: event.eventType) {
                let rule = rules.rules[index]
                let wasMember = customer.ruleMembership[index]
                if rule.leavesOn == event.eventType {
                    customer.ruleProgress[index] = 0
                    customer.ruleMembership[index] = false
                } else {
                    customer.ruleProgress[index] += 1
                    if customer.ruleProgress[index] >= rule.entersAfter.effectiveCount {
                        customer.ruleMembership[index] = true
                    }
                }
                if wasMember != customer.ruleMembership[index], !touched.contains(rule.category) {
                    touched.append(rule.category)
                }
            }
            for category in touched {
                Self.republish(category, of: &customer, projectToken: token, rules: rules, ledger: &ledger)
            }
        }
    }

    /// Merges a customer update's properties into its customer.
    mutating func identify(_ update: CustomerUpdate, nextKey: inout UInt64) {
        let key = resolve(update.customerIds, nextKey: &nextKey)
        modifyCustomer(key) { customer in
            customer.properties.merge(update.properties) { _, new in new }
        }
    }

    /// Overrides the rules for the customer of `cookie` in `category` (creating the customer).
    mutating func script(
        _ segments: [Segment], category: SegmentCategory, cookie: String, rules: RuleBook, ledger: inout ChangeLedger,
        nextKey: inout UInt64
    ) {
        let key = resolve(cookie: cookie, nextKey: &nextKey)
        let token = project.token
        modifyCustomer(key) { customer in
            customer.scripted[category] = segments
            Self.republish(category, of: &customer, projectToken: token, rules: rules, ledger: &ledger)
        }
    }

    /// Ends the scripted override of `category` (or of every category when `nil`) for the customer
    /// of `cookie`, going back to the rules.
    mutating func clearScript(
        category: SegmentCategory?, cookie: String, rules: RuleBook, ledger: inout ChangeLedger
    ) {
        guard let key = key(forCookie: cookie) else { return }
        let token = project.token
        modifyCustomer(key) { customer in
            let categories = category.map { [$0] } ?? customer.scripted.keys.sorted { $0.name < $1.name }
            for category in categories where customer.scripted.removeValue(forKey: category) != nil {
                Self.republish(category, of: &customer, projectToken: token, rules: rules, ledger: &ledger)
            }
        }
    }

    /// Drops every rule's progress and membership (the rule book was emptied) and republishes the
    /// categories the old rules fed. Customers are visited in key order so versions are reproducible.
    mutating func forgetRules(oldCategories: [SegmentCategory], rules: RuleBook, ledger: inout ChangeLedger) {
        let token = project.token
        for key in customers.keys.sorted() {
            modifyCustomer(key) { customer in
                customer.ruleProgress = []
                customer.ruleMembership = []
                for category in oldCategories {
                    Self.republish(category, of: &customer, projectToken: token, rules: rules, ledger: &ledger)
                }
            }
        }
    }

    /// The response for `cookie`: every rule category, plus the customer's scripted and published
    /// ones, each with its current list (`[]` when empty or for an unknown cookie).
    func response(forCookie cookie: String, rules: RuleBook) -> SegmentsResponse {
        var categories: [SegmentCategory: [Segment]] = [:]
        for category in rules.categories { categories[category] = [] }
        if let key = key(forCookie: cookie), let customer = customers[key] {
            for category in customer.scripted.keys { categories[category] = [] }
            for (category, segments) in customer.published { categories[category] = segments }
        }
        return SegmentsResponse(categories: categories)
    }

    /// Recomputes the list of `category` and stamps a change when its set of segments differs.
    private static func republish(
        _ category: SegmentCategory, of customer: inout CustomerRecord, projectToken: String, rules: RuleBook,
        ledger: inout ChangeLedger
    ) {
        let current = customer.published[category] ?? []
        let membership = customer.ruleMembership
        let next =
            customer.scripted[category]
            ?? rules.segments(in: category) { index in index < membership.count && membership[index] }
        guard Set(current) != Set(next) else {
            customer.published[category] = next
            return
        }
        customer.published[category] = next
        customer.lastChanges[category] = ledger.stamp(
            projectToken: projectToken, customer: customer, category: category, segments: next)
    }

    /// Runs `body` on the record of `key` in place: the record is moved out of the dictionary and
    /// back, so its arrays stay uniquely referenced and are not copied.
    private mutating func modifyCustomer(_ key: UInt64, _ body: (inout CustomerRecord) -> Void) {
        guard var customer = customers.removeValue(forKey: key) else { return }
        body(&customer)
        customers[key] = customer
    }
}
