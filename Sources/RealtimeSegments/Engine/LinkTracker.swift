/// What the server links the cookie to, as far as the engine knows, and whether a fetch must send
/// link-ids first.
///
/// The server resolves a cookie to the customer linked last, so at most one fetch that sends
/// link-ids is in flight: the link the engine sent last is then the one the server holds. A check or
/// pull fetch that must link while one is in flight is deferred, and taken up again when it ends
/// (``takeDeferred()``). Checks and pulls share this state, which is why it is neither's own.
///
/// A pure value: it performs no I/O and reads no clock. Owned by ``EngineOwner``, which launches
/// the fetches it allows; engine thread only.
struct LinkTracker {
    /// What a fetch about to start does.
    enum Decision: Equatable {
        /// Start the fetch now, sending link-ids with these hard ids first if `link` is set.
        case fetch(link: [String: String]?)
        /// Wait: a fetch that sends link-ids is in flight. The fetch is handed back by
        /// ``takeDeferred()`` once it has ended.
        case deferred
    }

    /// The cookie and the hard ids the server links it to: `nil` while a link is in flight or after
    /// one failed, so that the next fetch with hard ids links first.
    private var known: (cookie: String, ids: [String: String])?
    /// A fetch that sends link-ids is in flight.
    private(set) var linkingFetchInFlight = false
    /// A check fetch, a pull fetch, waits for the linking fetch in flight to end.
    private var checkDeferred = false
    private var pullDeferred = false

    /// Starts from the linked ids of the state file, which belong to the cookie the client starts
    /// with (`cookie`).
    init(cookie: String?, linkedIds: [String: String]) {
        if let cookie, !linkedIds.isEmpty {
            known = (cookie, linkedIds)
        }
    }

    /// Decides how a `purpose` fetch for `identity` starts: with link-ids if it has hard ids the
    /// server is not known to link its cookie to, deferred if such a fetch must wait for the link in
    /// flight. A fetch that links makes the link unknown until ``record(_:)``.
    mutating func prepareFetch(_ purpose: FetchPurpose, for identity: IdentitySnapshot) -> Decision {
        let hardIds = identity.hardIds
        let mustLink = !hardIds.isEmpty && !(known?.cookie == identity.cookie && known?.ids == hardIds)
        guard mustLink else { return .fetch(link: nil) }
        guard !linkingFetchInFlight else {
            switch purpose {
            case .check: checkDeferred = true
            case .pull: pullDeferred = true
            }
            return .deferred
        }
        linkingFetchInFlight = true
        known = nil
        return .fetch(link: hardIds)
    }

    /// Records what the server links the cookie to after a fetch that sent link-ids: the ids if the
    /// link was answered as done (whether or not the fetch is still current), else unknown. Returns
    /// `true` if the fetch sent link-ids (what is known changed, and is worth persisting).
    mutating func record(_ outcome: FetchOutcome) -> Bool {
        guard outcome.linkAttempted else { return false }
        linkingFetchInFlight = false
        known = outcome.linked.map { (outcome.identity.cookie, $0) }
        return true
    }

    /// The fetches that were deferred, once no linking fetch is in flight (none before): each is
    /// handed back once, to be started for the customer current now.
    mutating func takeDeferred() -> (check: Bool, pull: Bool) {
        guard !linkingFetchInFlight else { return (false, false) }
        defer {
            checkDeferred = false
            pullDeferred = false
        }
        return (checkDeferred, pullDeferred)
    }

    /// The hard ids the server is known to link `cookie` to (empty if none or unknown): what the
    /// state file keeps.
    func linkedIds(forCookie cookie: String) -> [String: String] {
        guard let known, known.cookie == cookie else { return [:] }
        return known.ids
    }
}
