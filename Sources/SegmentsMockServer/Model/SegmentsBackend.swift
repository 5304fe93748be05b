import Dispatch
import Foundation
import NIOConcurrencyHelpers
import RealtimeSegments

/// The mock segmentation backend: projects, customers and their events, real-time segment rules,
/// scripted segments, stamped membership changes and request counters.
///
/// Both ways in, ``MockSegmentsTransport`` (in memory) and ``SegmentsMockHTTPServer`` (HTTP on
/// loopback), serve one backend; several of each may share it.
///
/// ```swift
/// let backend = SegmentsBackend()
/// backend.addRule(SegmentRule(
///     category: .discovery, segment: Segment(id: "s1", segmentationId: "g1"),
///     entersAfter: (eventType: "view_item", count: 3), leavesOn: "purchase"))
/// let transport = MockSegmentsTransport(backend: backend)   // or start a SegmentsMockHTTPServer
/// ```
///
/// Customers live per project and are found by their ids (see ``trackEvents(_:projectToken:)`` for
/// the resolution rule). Methods that name a customer only by cookie and take an optional
/// `projectToken` mean the first project when it is `nil`.
///
/// Threading: every method may be called from any thread. All state is behind one lock, and each
/// call is atomic (a batch of events is applied as one step). The clock is called while that lock
/// is held: it must be cheap and must not call back into the backend.
public final class SegmentsBackend: Sendable {
    /// How many membership changes ``changes(since:)`` can still return: older ones are dropped
    /// (``lastChange(forCookie:category:projectToken:)`` keeps the latest per customer regardless).
    public static let changeLogCapacity = 100_000

    private let state: NIOLockedValueBox<BackendState>
    private let wallClock: @Sendable () -> Double

    /// Creates a backend.
    ///
    /// - Parameters:
    ///   - projects: The projects it serves; the first is the default project of cookie-only
    ///     queries. A repeated token keeps its first entry.
    ///   - clock: Monotonic nanoseconds, used to stamp ``MembershipChange/changedAt``. Inject a fake
    ///     in tests; the default is the uptime clock that `DispatchTime.now()` reads.
    ///   - wallClock: Seconds since 1970: the server time that ``currentTime`` reads (what
    ///     `system/time` answers, and the timestamp of an event sent without one). Called without
    ///     the lock. The default is the system's real-time clock.
    public init(
        projects: [MockProject] = [MockProject(token: "mock-project", apiKey: "mock-key")],
        clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds },
        wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.state = NIOLockedValueBox(BackendState(projects: projects, clock: clock))
        self.wallClock = wallClock
    }

    /// The server's current time in seconds since 1970, from the `wallClock` given at creation.
    public var currentTime: Double { wallClock() }

    // MARK: Projects

    /// The projects served, in the order given.
    public var projects: [MockProject] {
        state.withLockedValue { state in state.projectTokens.map { state.projects[$0]!.project } }
    }

    /// The project with `token`, or `nil` when the backend does not serve it.
    public func project(token: String) -> MockProject? {
        state.withLockedValue { $0.projects[token]?.project }
    }

    // MARK: Ingestion

    /// Stores `events` for their customers, in order, evaluating the rules on each.
    ///
    /// Resolution: an event's `customer_ids` find an existing customer by any hard (non-cookie)
    /// id, else by its cookie; otherwise a new customer is created. Every id in the dictionary is
    /// then linked to that customer, moving it away from any other customer that had it.
    ///
    /// - Returns: `false`, storing nothing, when `projectToken` is not served.
    @discardableResult
    public func trackEvents(_ events: [TrackedEvent], projectToken: String) -> Bool {
        state.withLockedValue { $0.apply(events.map(TrackingCommand.event), projectToken: projectToken) }
    }

    /// Merges a customer update (ids as for ``trackEvents(_:projectToken:)``, properties merged,
    /// later values winning).
    ///
    /// - Returns: `false`, changing nothing, when `projectToken` is not served.
    @discardableResult
    public func identify(_ update: CustomerUpdate, projectToken: String) -> Bool {
        state.withLockedValue { $0.apply([.customer(update)], projectToken: projectToken) }
    }

    /// Links `cookie` to `externalIds`: the customer owning any of those ids (else the cookie's
    /// customer, else a new one) gets the cookie and every id, so a cookie linked to another
    /// customer's ids moves into that customer. Counted in ``linkCalls``.
    ///
    /// - Returns: `false`, changing nothing, when `projectToken` is not served.
    @discardableResult
    public func linkIds(cookie: String, externalIds: [String: String], projectToken: String) -> Bool {
        state.withLockedValue { $0.link(cookie: cookie, externalIds: externalIds, projectToken: projectToken) }
    }

    /// Applies a tracking batch atomically, in order. `false` for an unknown project.
    func apply(_ commands: [TrackingCommand], projectToken: String) -> Bool {
        state.withLockedValue { $0.apply(commands, projectToken: projectToken) }
    }

    // MARK: Rules

    /// Adds a rule. It applies from the next event on: customers' earlier events do not count.
    public func addRule(_ rule: SegmentRule) {
        state.withLockedValue { $0.addRule(rule) }
    }

    /// Removes every rule; customers leave the rules' segments (each such exit is a stamped change,
    /// except where a scripted list overrides the category).
    public func removeAllRules() {
        state.withLockedValue { $0.removeAllRules() }
    }

    /// The rules, in the order they were added.
    public var rules: [SegmentRule] { state.withLockedValue { $0.rules.rules } }

    // MARK: Scripted segments

    /// Makes the customer of `cookie` (created if unknown) have exactly `segments` in `category`,
    /// whatever the rules say, until ``clearScripted(category:forCookie:projectToken:)``. A
    /// different set of segments than before is a stamped change.
    public func setSegments(
        _ segments: [Segment], category: SegmentCategory, forCookie cookie: String, projectToken: String? = nil
    ) {
        state.withLockedValue { state in
            state.script(
                segments, category: category, cookie: cookie,
                projectToken: projectToken ?? state.defaultProjectToken)
        }
    }

    /// Ends the scripted override of `category` (of every category when `nil`) for the customer of
    /// `cookie`; the rules decide again (a stamped change if that changes the set).
    public func clearScripted(
        category: SegmentCategory? = nil, forCookie cookie: String, projectToken: String? = nil
    ) {
        state.withLockedValue { state in
            state.clearScript(
                category: category, cookie: cookie, projectToken: projectToken ?? state.defaultProjectToken)
        }
    }

    // MARK: Queries

    /// What a fetch of `cookie`'s segments returns: every category a rule names, plus the
    /// customer's scripted and non-empty categories, each with its current list. An unknown
    /// cookie is a customer with no segments (every rule category as `[]`).
    ///
    /// - Returns: `nil` when `projectToken` is not served.
    public func segments(forCookie cookie: String, projectToken: String) -> SegmentsResponse? {
        state.withLockedValue { state in
            state.projects[projectToken].map { $0.response(forCookie: cookie, rules: state.rules) }
        }
    }

    /// The latest change of `category` for the customer that has `cookie` (any of their cookies),
    /// or `nil` if there is none. O(1): meant for the harness's hot path.
    public func lastChange(
        forCookie cookie: String, category: SegmentCategory, projectToken: String? = nil
    ) -> MembershipChange? {
        state.withLockedValue { state in
            state.customer(forCookie: cookie, projectToken: projectToken ?? state.defaultProjectToken)?
                .lastChanges[category]
        }
    }

    /// Every retained change with a version greater than `version`, oldest first (the last
    /// ``changeLogCapacity`` changes at least are retained). `changes(since: 0)` is all of them.
    public func changes(since version: UInt64) -> [MembershipChange] {
        state.withLockedValue { $0.ledger.changes(since: version) }
    }

    /// The version of the latest change; 0 before any.
    public var currentVersion: UInt64 { state.withLockedValue { $0.ledger.version } }

    /// A snapshot of the customer with `cookie`, or `nil` if no customer has it.
    public func customer(forCookie cookie: String, projectToken: String? = nil) -> MockCustomer? {
        state.withLockedValue { state in
            state.customer(forCookie: cookie, projectToken: projectToken ?? state.defaultProjectToken)?.snapshot
        }
    }

    /// A snapshot of the customer with the hard id `name` = `value`, or `nil` if no customer has it.
    public func customer(externalIdName name: String, value: String, projectToken: String? = nil) -> MockCustomer? {
        state.withLockedValue { state in
            guard let store = state.projects[projectToken ?? state.defaultProjectToken],
                let key = store.key(forExternalId: name, value: value)
            else { return nil }
            return store.customers[key]?.snapshot
        }
    }

    /// The number of customers of the project (the first one when `nil`).
    public func customerCount(projectToken: String? = nil) -> Int {
        state.withLockedValue { state in state.projects[projectToken ?? state.defaultProjectToken]?.customers.count ?? 0 }
    }

    // MARK: Counters

    /// Requests received per endpoint by every way in, rejected and faulted ones included.
    public var requestCounts: [MockEndpoint: Int] { state.withLockedValue { $0.requestCounts } }

    /// Requests received by `endpoint`, rejected and faulted ones included.
    public func requestCount(_ endpoint: MockEndpoint) -> Int {
        state.withLockedValue { $0.requestCounts[endpoint] ?? 0 }
    }

    /// Events stored, over all projects.
    public var eventsAccepted: Int { state.withLockedValue { $0.eventsAccepted } }

    /// From now on, counts the distinct values of the numeric event property `name` among the
    /// events accepted (``distinctEventsAccepted``): a harness that numbers its events tells an
    /// event never stored from one stored twice (an upload stored, then sent again after the
    /// client timed out). Keeps every distinct value: for runs of bounded length.
    public func countDistinctEvents(byNumberProperty name: String) {
        state.withLockedValue { state in
            state.distinctProperty = name
            state.distinctValues = []
        }
    }

    /// Distinct values of the property named to ``countDistinctEvents(byNumberProperty:)`` among
    /// the events accepted since (0 before it is called).
    public var distinctEventsAccepted: Int { state.withLockedValue { $0.distinctValues.count } }

    /// The distinct values themselves (see ``distinctEventsAccepted``): which numbered events were
    /// stored, however many events each customer has.
    public var distinctEventValues: Set<Double> { state.withLockedValue { $0.distinctValues } }

    /// Successful link-ids calls.
    public var linkCalls: Int { state.withLockedValue { $0.linkCalls } }

    /// The number of events tracked for the customer with `cookie` (0 for an unknown cookie).
    public func eventCount(forCookie cookie: String, projectToken: String? = nil) -> Int {
        customer(forCookie: cookie, projectToken: projectToken)?.eventCount ?? 0
    }

    /// The last events (at most 1000) of the customer with `cookie`, oldest first.
    public func events(forCookie cookie: String, projectToken: String? = nil) -> [TrackedEvent] {
        state.withLockedValue { state in
            state.customer(forCookie: cookie, projectToken: projectToken ?? state.defaultProjectToken)?
                .recentEvents.events ?? []
        }
    }

    /// Counts a request to `endpoint` (called by the ways in as requests arrive).
    func recordRequest(_ endpoint: MockEndpoint) {
        state.withLockedValue { $0.requestCounts[endpoint, default: 0] += 1 }
    }

    /// Runs `body` on the state under the lock: the door for this type's extensions in other files.
    func withState<Result>(_ body: (inout BackendState) -> Result) -> Result {
        state.withLockedValue(body)
    }
}
