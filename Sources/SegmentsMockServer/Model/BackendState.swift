import RealtimeSegments

/// All of the backend's state: projects and their customers, the rules, the change ledger and the
/// counters. ``SegmentsBackend`` keeps it behind one lock; every method here runs under that lock.
struct BackendState: Sendable {
    /// The projects in the order given, the first being the default one.
    let projectTokens: [String]
    var projects: [String: ProjectStore]
    var rules = RuleBook()
    var ledger: ChangeLedger
    /// The key of the next new customer; keys are global so that a ``MembershipChange`` names one
    /// customer across projects.
    var nextCustomerKey: UInt64 = 1
    var requestCounts: [MockEndpoint: Int] = [:]
    var eventsAccepted = 0
    var linkCalls = 0
    /// The numeric event property whose distinct values are counted, if asked for.
    var distinctProperty: String?
    var distinctValues: Set<Double> = []

    init(projects: [MockProject], clock: @escaping @Sendable () -> UInt64) {
        var tokens: [String] = []
        var stores: [String: ProjectStore] = [:]
        for project in projects where stores[project.token] == nil {
            tokens.append(project.token)
            stores[project.token] = ProjectStore(project: project)
        }
        self.projectTokens = tokens
        self.projects = stores
        self.ledger = ChangeLedger(clock: clock)
    }

    /// The token a query without one means: the first project's.
    var defaultProjectToken: String { projectTokens.first ?? "" }

    /// Applies tracking commands in order; `false` (and nothing applied) for an unknown project.
    mutating func apply(_ commands: [TrackingCommand], projectToken: String) -> Bool {
        guard projects[projectToken] != nil else { return false }
        for command in commands {
            switch command {
            case .event(let event):
                projects[projectToken]!.track(event, rules: rules, ledger: &ledger, nextKey: &nextCustomerKey)
                eventsAccepted += 1
                if let name = distinctProperty, case .number(let value) = event.properties[name] { distinctValues.insert(value) }
            case .customer(let update):
                projects[projectToken]!.identify(update, nextKey: &nextCustomerKey)
            }
        }
        return true
    }

    /// Links `cookie` to `externalIds`; `false` (and nothing linked) for an unknown project.
    mutating func link(cookie: String, externalIds: [String: String], projectToken: String) -> Bool {
        guard projects[projectToken] != nil else { return false }
        var ids = externalIds
        ids[ProjectStore.cookieIdName] = cookie
        _ = projects[projectToken]!.resolve(ids, nextKey: &nextCustomerKey)
        linkCalls += 1
        return true
    }

    mutating func addRule(_ rule: SegmentRule) {
        rules.add(rule)
    }

    mutating func removeAllRules() {
        let oldCategories = rules.categories
        rules = RuleBook()
        for token in projectTokens {
            projects[token]!.forgetRules(oldCategories: oldCategories, rules: rules, ledger: &ledger)
        }
    }

    mutating func script(_ segments: [Segment], category: SegmentCategory, cookie: String, projectToken: String) {
        guard projects[projectToken] != nil else { return }
        projects[projectToken]!.script(
            segments, category: category, cookie: cookie, rules: rules, ledger: &ledger, nextKey: &nextCustomerKey)
    }

    mutating func clearScript(category: SegmentCategory?, cookie: String, projectToken: String) {
        guard projects[projectToken] != nil else { return }
        projects[projectToken]!.clearScript(category: category, cookie: cookie, rules: rules, ledger: &ledger)
    }

    /// The customer record of `cookie` in the project, if both exist.
    func customer(forCookie cookie: String, projectToken: String) -> CustomerRecord? {
        guard let store = projects[projectToken], let key = store.key(forCookie: cookie) else { return nil }
        return store.customers[key]
    }
}
