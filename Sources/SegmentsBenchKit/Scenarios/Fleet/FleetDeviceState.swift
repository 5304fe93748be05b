import RealtimeSegments

/// What the harness knows about one simulated device: its customer now and before, and the
/// timings its transport and callbacks need. Kept in a ``LockedBox`` per device; the device's
/// generator thread writes the identity, its transport and callbacks read and update the rest.
struct FleetDeviceState: Sendable {
    /// The device's cookie now (as of the last switch that returned).
    var cookie: String
    /// Every cookie the device has had, oldest first.
    var cookies: [String]
    /// Cookie → when the `anonymize()` that left it returned (monotonic ns).
    var switchedAway: [String: UInt64] = [:]
    /// Delivered markers that were neither the cookie then nor one switched away from: the cookie
    /// an `anonymize()` still under way has just minted, or foreign data (checked at the end).
    var unknownMarkers: [String] = []
    /// When `start()` was called.
    var startedAt: UInt64 = 0
    /// Whether a callback has run yet.
    var loaded = false
    /// Start of the previous fetch.
    var lastFetchStart: UInt64?
    /// When the latest switch (identify or anonymize) was called.
    var lastSwitchAt: UInt64?
    /// Intended start of the latest identify whose link has not returned yet.
    var pendingLinkIntended: UInt64?
    /// Per category (discovery, content, merchandising): the intended starts of the changes
    /// scripted for the cookie now and not yet seen by a callback.
    var unseenChanges: [[UInt64]] = [[], [], []]
    /// Identify calls so far (names the next hard id).
    var identifies = 0
    /// Raised before and after each switch: odd while one is under way.
    var switchEpoch = 0
    /// When the latest switch returned (monotonic ns).
    var lastSwitchReturned: UInt64 = 0
    /// Per category: the last settled delivery (see ``FleetDevice``), with its epoch.
    var lastSettled: [(epoch: Int, segments: [Segment])?] = [nil, nil, nil]

    init(cookie: String) {
        self.cookie = cookie
        self.cookies = [cookie]
    }

    /// A change intended at `intended` is about to be scripted for the cookie now. Noted before
    /// the script, so that no delivery of it can come first.
    mutating func willScript(_ intended: UInt64, categoryIndex: Int) {
        unseenChanges[categoryIndex].append(intended)
    }

    /// A callback of `categoryIndex` saw the change intended at `change`, at `now`: returns the
    /// latency of every unseen change up to it. A change the server replaced before any fetch
    /// carried it is seen with the one that replaced it; timing only the change delivered would
    /// leave out the oldest, longest-waiting ones.
    mutating func sawChange(_ change: UInt64, categoryIndex: Int, at now: UInt64) -> [UInt64] {
        var latencies: [UInt64] = []
        unseenChanges[categoryIndex].removeAll { intended in
            guard intended <= change else { return false }
            if intended <= now { latencies.append(now - intended) }
            return true
        }
        return latencies
    }

    /// The cookie changed: the changes scripted for the one before will never be delivered.
    mutating func forgetUnseenChanges() {
        unseenChanges = [[], [], []]
    }
}
