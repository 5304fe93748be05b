import Atomics

/// What the devices of a fleet run record, shared by all of them: latency distributions (one lock
/// each) and correctness counters (atomics). Any thread may record.
final class FleetMeasurements: Sendable {
    /// Fetch: transport call start → return (reset when the load begins).
    let fetch = LockedBox(LatencyRecorder())
    /// Link: intended start of the identify that changed the hard ids → link call return.
    let link = LockedBox(LatencyRecorder())
    /// Upload: each event's intended start → the upload carrying it returned.
    let upload = LockedBox(LatencyRecorder())
    /// Server change → callback: the change's intended start → the callback's first delivery of it.
    let changeToCallback = LockedBox(LatencyRecorder())
    /// `start()` → the device's first callback.
    let firstLoad = LockedBox(LatencyRecorder())

    /// Callbacks that got segments of a customer the device had switched away from (beyond the
    /// grace) or never was.
    let staleDeliveries = ManagedAtomic<Int>(0)
    /// Settled deliveries that repeated the callback's previous one with no switch between
    /// (SPEC §4: callbacks hear changes).
    let repeatedDeliveries = ManagedAtomic<Int>(0)
    /// Callbacks whose segments name no customer.
    let unmarkedDeliveries = ManagedAtomic<Int>(0)
    /// Fetches of one device and customer closer than half a debounce to the previous one.
    let excessFetches = ManagedAtomic<Int>(0)
    /// Callback invocations.
    let deliveries = ManagedAtomic<Int>(0)
    /// Fetches started.
    let fetches = ManagedAtomic<Int>(0)
    /// Devices whose first callback arrived.
    let devicesLoaded = ManagedAtomic<Int>(0)
    /// Events in uploads the server answered with success (counted by the client: what a target
    /// acknowledged, where the mock's own count is not available).
    let eventsAcknowledged = ManagedAtomic<Int>(0)
    /// Transport calls that failed (the engine retries uploads; a failed fetch is logged).
    let transportFailures = ManagedAtomic<Int>(0)

    /// The shared distributions folded into the live buckets, each under its own lock (no copy of
    /// a histogram, which would make the next recording thread copy it back), by latency name.
    func liveLatencies() -> [String: LatencyBucketCounts] {
        [("change-to-callback", changeToCallback), ("fetch", fetch), ("link", link), ("upload", upload), ("first-load", firstLoad)]
            .reduce(into: [:]) { folded, entry in folded[entry.0] = entry.1.withLock { LatencyBuckets.fold($0.histogram) } }
    }

    /// Records `nanoseconds` into `recorder`.
    static func record(_ nanoseconds: UInt64, into recorder: LockedBox<LatencyRecorder>) {
        recorder.withLock { $0.record(nanoseconds) }
    }
}
