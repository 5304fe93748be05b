import Foundation
import Logging
import RealtimeSegments

/// One simulated device: an engine (a real `SegmentsClient` unless the registry names another
/// ``BenchEngineFactory``) with its own customer, cookie, callbacks (one per category, first load
/// included), debounce and transport wrapper, on a shared engine group.
///
/// Threading: ``track(category:intended:backend:)`` and ``switchCustomer(identify:intended:backend:category:)``
/// are called by one generator thread at a time per device; callbacks run on the engine's
/// delivery threads.
final class FleetDevice: Sendable {
    /// The segmentation id of the segment a scripted change adds; its `id` is the change's
    /// intended start (monotonic ns).
    static let changeSegmentationId = "fleet-change"

    let index: Int
    let engine: any BenchEngine
    let state: LockedBox<FleetDeviceState>

    /// Creates the engine with `factory` (not started) with its callbacks registered.
    /// - Throws: what `factory` throws.
    init(
        index: Int, backend: FleetBackend, factory: BenchEngineFactory, group: SegmentsEngineGroup, debounce: Duration,
        measurements: FleetMeasurements, logger: Logger
    ) throws {
        self.index = index
        let state = LockedBox(FleetDeviceState(cookie: ""))
        let deviceTransport = FleetDeviceTransport(backend.transport, state: state, measurements: measurements, debounce: debounce)
        var configuration = backend.configuration(transport: deviceTransport)
        configuration.debounce = debounce
        configuration.maxWait = max(debounce * 6, .milliseconds(1))
        configuration.engineGroup = group
        configuration.ingestCapacity = 64
        configuration.uploadRetry = RetryPolicy(initial: .milliseconds(50), maximum: .seconds(1))
        configuration.logger = logger
        let engine = try factory.makeEngine(configuration)
        let cookie = engine.cookie
        state.withLock { $0 = FleetDeviceState(cookie: cookie) }
        self.engine = engine
        self.state = state
        engine.addCallbacks(FleetScenario.categories.enumerated().map { categoryIndex, category in
            SegmentCallbackData(category: category, isIncludeFirstLoad: true) { segments in
                Self.deliver(segments, categoryIndex: categoryIndex, state: state, measurements: measurements)
            }
        })
    }

    /// Starts the engine, noting when.
    func start() {
        let now = monotonicNanoseconds()
        state.withLock { $0.startedAt = now }
        engine.start()
    }

    /// Scripts a change of `category` on the mock for the device's customer (stamped with
    /// `intended`; nothing against a target), then tracks an event carrying `intended`. Returns whether `trackEvent` accepted it.
    func track(category: SegmentCategory, intended: UInt64, backend: FleetBackend) -> Bool {
        let categoryIndex = Self.index(of: category)
        let cookie = state.withLock { state in
            state.willScript(intended, categoryIndex: categoryIndex)
            return state.cookie
        }
        backend.script(Self.change(intended), category: category, cookie: cookie)
        do {
            try engine.trackEvent(
                eventType: "view_item", properties: [FleetDeviceTransport.intendedAtProperty: .number(Double(intended))])
            return true
        } catch {
            return false
        }
    }

    /// Switches the customer: `identify` sets a new hard id (same cookie: a link, then a fetch);
    /// otherwise `anonymize()` mints a new cookie, whose segments then change on the server.
    func switchCustomer(identify: Bool, intended: UInt64, backend: FleetBackend, category: SegmentCategory) {
        let called = monotonicNanoseconds()
        if identify {
            let number = state.withLock { state in
                state.lastSwitchAt = called
                state.switchEpoch += 1
                state.pendingLinkIntended = intended
                state.identifies += 1
                return state.identifies
            }
            try? engine.identifyCustomer(customerIds: ["registered": "device-\(index)-\(number)"])
            let returned = monotonicNanoseconds()
            state.withLock { state in
                state.switchEpoch += 1
                state.lastSwitchReturned = returned
            }
            return
        }
        let previous = state.withLock { state in
            state.lastSwitchAt = called
            state.switchEpoch += 1
            return state.cookie
        }
        engine.anonymize()
        let returned = monotonicNanoseconds()
        let cookie = engine.cookie
        state.withLock { state in
            state.switchEpoch += 1
            state.lastSwitchReturned = returned
            state.switchedAway[previous] = returned
            state.cookie = cookie
            state.cookies.append(cookie)
            state.forgetUnseenChanges()
            state.willScript(intended, categoryIndex: Self.index(of: category))
        }
        backend.script(Self.change(intended), category: category, cookie: cookie)
    }

    /// The index of `category` in ``FleetScenario/categories``, as callbacks number them.
    private static func index(of category: SegmentCategory) -> Int {
        FleetScenario.categories.firstIndex(of: category) ?? 0
    }

    /// The segments of a scripted change intended at `intended`.
    static func change(_ intended: UInt64) -> [Segment] {
        [Segment(id: String(intended), segmentationId: changeSegmentationId)]
    }

    /// A callback's delivery: whose data it is (stale?), whether it repeats the one before, the
    /// first load, and the change it carries.
    ///
    /// A delivery may repeat the one before only across a switch (SPEC §4: callbacks hear changes,
    /// and first loads). It is settled when it came with no switch under way, more than the stale
    /// grace after the last one returned: a callback whose generation check passed just before a
    /// switch may start just after it, and the new customer's check then delivers the same
    /// segments again, rightly. Only settled deliveries of one epoch are compared.
    private static func deliver(
        _ segments: [Segment], categoryIndex: Int, state: LockedBox<FleetDeviceState>, measurements: FleetMeasurements
    ) {
        let now = monotonicNanoseconds()
        measurements.deliveries.wrappingIncrement(ordering: .relaxed)
        let marker = segments.first(where: { $0.segmentationId == MeasuringTransport.markerSegmentationId })?.id
        let change = segments.first(where: { $0.segmentationId == changeSegmentationId }).flatMap { UInt64($0.id) }
        var repeated = false
        var firstLoad: UInt64?
        var changeLatencies: [UInt64] = []
        var stale = false
        state.withLock { state in
            let epoch = state.switchEpoch
            let settled = epoch % 2 == 0 && now > state.lastSwitchReturned + CustomerSwitchScenario.staleGraceNanoseconds
            repeated = settled && state.lastSettled[categoryIndex].map { $0.epoch == epoch && $0.segments == segments } ?? false
            state.lastSettled[categoryIndex] = settled ? (epoch, segments) : nil
            guard let marker else { return }
            if !state.loaded {
                state.loaded = true
                firstLoad = now &- state.startedAt
            }
            guard marker == state.cookie else {
                if let away = state.switchedAway[marker] {
                    stale = now > away + CustomerSwitchScenario.staleGraceNanoseconds
                } else {
                    state.unknownMarkers.append(marker)
                }
                return
            }
            if let change { changeLatencies = state.sawChange(change, categoryIndex: categoryIndex, at: now) }
        }
        if repeated { measurements.repeatedDeliveries.wrappingIncrement(ordering: .relaxed) }
        if marker == nil { measurements.unmarkedDeliveries.wrappingIncrement(ordering: .relaxed) }
        if stale { measurements.staleDeliveries.wrappingIncrement(ordering: .relaxed) }
        if let firstLoad {
            measurements.devicesLoaded.wrappingIncrement(ordering: .relaxed)
            FleetMeasurements.record(firstLoad, into: measurements.firstLoad)
        }
        for latency in changeLatencies { FleetMeasurements.record(latency, into: measurements.changeToCallback) }
    }

    /// Delivered markers that were never this device's cookie (checked once the run is over).
    var foreignMarkers: Int {
        state.withLock { state in state.unknownMarkers.filter { !state.cookies.contains($0) }.count }
    }
}
