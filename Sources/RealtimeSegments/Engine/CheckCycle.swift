import Logging

/// The listener checks: when one runs (the coalescer's debounce, max-wait and single flight), and,
/// when its result arrives, the diff against the last known state and the hand-off of the changed
/// categories (and pending first loads) to the ``DeliveryExecutor``.
///
/// It starts no fetch itself: a call that starts a check returns the identity to fetch for, and
/// ``EngineOwner`` launches the fetch (through its ``LinkTracker``) and routes the result back to
/// ``checkCompleted(_:)``.
///
/// Threading: engine thread only (owned by ``EngineOwner``, not Sendable). It owns the coalescer,
/// the last known state and the categories last shown non-empty; it reads the callback registry
/// and the identity, stores results in the pull cache and schedules deliveries.
final class CheckCycle {
    /// Why a check was requested (decides which "no callback" line is logged).
    enum Trigger {
        case initial, registration, identify, customerSwitch, trackedEvent
    }

    /// What a check's result did.
    struct Completion {
        /// The result was applied: the last known state changed (and is worth persisting).
        var applied = false
        /// A check to start now, for this identity (requests arrived while this one ran).
        var next: IdentitySnapshot?
    }

    private let identity: IdentityCell
    private let registry: CallbackRegistry
    private let pullCache: PullCache
    private let counters: EngineCounters
    private let clock: any SegmentsClock
    private let logger: Logger
    private let delivery: DeliveryExecutor

    // The state below is read and written by the engine thread alone, and no method of this type
    // calls code that could call back into it while it holds an access (callbacks run on the
    // delivery queues), so two accesses never overlap: the run-time exclusivity check, a call into
    // the runtime for each access of a check's diff, is turned off for them.
    @exclusivity(unchecked) private var coalescer: CoalescerStateMachine
    /// The segments last applied, and the customer they belong to.
    @exclusivity(unchecked) private(set) var lastKnown: LastKnownState?
    /// Buffers for comparing categories as sets, kept so that a changed category allocates nothing.
    @exclusivity(unchecked) private var comparer = SegmentSetComparer()
    /// Each category's last delivered list: the next delivery shares the strings of its ids.
    @exclusivity(unchecked) private var delivered: [SegmentCategory: [Segment]] = [:]
    /// Categories whose callbacks were last given non-empty segments: after a customer switch,
    /// those the new customer's response lacks are delivered as `[]` (SPEC §4).
    @exclusivity(unchecked) private var shownCategories: Set<SegmentCategory>
    /// After ``stop()``, no check is requested or started and no result is applied.
    private var stopped = false
    /// The generation the check in flight fetches for, while one is in flight.
    private var inFlightGeneration: UInt64?
    /// One debounce window after a customer switch that found a check of the previous customer in
    /// flight: that check keeps the new customer's from starting until it returns, so if it is
    /// still out then, the previous customer's segments are cleared (SPEC §3 trigger 5).
    private var staleFlightClearAt: SegmentsInstant?
    private let debounce: Duration

    init(
        configuration: SegmentsConfiguration, channels: EngineChannels, identity: IdentityCell,
        registry: CallbackRegistry, pullCache: PullCache, counters: EngineCounters, lastKnown: LastKnownState?
    ) {
        self.identity = identity
        self.registry = registry
        self.pullCache = pullCache
        self.counters = counters
        self.clock = configuration.clock
        self.logger = configuration.logger
        self.delivery = DeliveryExecutor(
            registry: registry, identity: identity, channels: channels, mode: configuration.deliveryMode,
            spinWindow: configuration.deliverySpinWindow, logger: configuration.logger, counters: counters)
        self.coalescer = CoalescerStateMachine(
            timing: .init(debounce: configuration.debounce, maxWait: configuration.maxWait))
        self.debounce = configuration.debounce
        self.lastKnown = lastKnown
        self.shownCategories = Set((lastKnown?.categories ?? [:]).compactMap { $0.value.isEmpty ? nil : $0.key })
    }

    /// When the pending requests' debounce window closes, if requests wait, or when a check of a
    /// previous customer still in flight has the screen cleared (never after ``stop()``).
    var deadline: SegmentsInstant? {
        guard !stopped else { return nil }
        guard let clearAt = staleFlightClearAt else { return coalescer.deadline }
        return min(coalescer.deadline ?? clearAt, clearAt)
    }

    /// Requests a check. Returns the identity to fetch for if one starts now.
    func request(_ trigger: Trigger) -> IdentitySnapshot? {
        guard !stopped else { return nil }
        guard registry.snapshot().count > 0 else {
            switch trigger {
            case .initial:
                // Both, as Exponea's SDK logs them at a start without callbacks.
                logger.debug("\(SegmentsLogMessage.skippingInitialNoCallback)")
                logger.debug("\(SegmentsLogMessage.skippingAfterTrackedEvent)")
            case .identify, .customerSwitch, .trackedEvent:
                logger.debug("\(SegmentsLogMessage.skippingAfterTrackedEvent)")
            case .registration: logger.debug("\(SegmentsLogMessage.skippingReloadNoCallback)")
            }
            return nil
        }
        logger.trace("Segments: Reload requested (\(trigger))")
        let now = clock.now()
        guard coalescer.request(at: now) == .startCheck else {
            if staleFlightClearAt == nil, let flight = inFlightGeneration, flight != identity.generation {
                staleFlightClearAt = now + debounce
            }
            return nil
        }
        return start()
    }

    /// Time passed. Returns the identity to fetch for if a check starts now.
    func tick(at now: SegmentsInstant) -> IdentitySnapshot? {
        guard !stopped else { return nil }
        if let clearAt = staleFlightClearAt, now >= clearAt {
            staleFlightClearAt = nil
            if let flight = inFlightGeneration, flight != identity.generation {
                clearPreviousCustomer(
                    for: identity.load(), because: "a check of the previous customer is still in flight after one debounce window")
            }
        }
        guard coalescer.tick(at: now) == .startCheck else { return nil }
        return start()
    }

    /// The customer changed (`anonymize`): pending requests are forgotten, and the last known state
    /// too unless it already belongs to `snapshot`'s customer. A check already in flight stays in
    /// flight; its result is dropped by generation.
    func customerSwitched(to snapshot: IdentitySnapshot) {
        // Every switch, whether a check was waiting or not, as Exponea's SDK says it.
        _ = coalescer.cancel()
        logger.debug("\(SegmentsLogMessage.checkCancelledMeanwhile)")
        // `anonymize()` publishes the new customer before it queues its item, so a check started in
        // between already fetched for the new customer, and its data may have been delivered: that
        // state is kept, or the next check would deliver it again.
        if lastKnown?.customerIds != snapshot.customerIds { lastKnown = nil }
    }

    /// The engine stops: pending requests are forgotten, no check starts or applies after this, and
    /// no delivery thread spins for a next delivery.
    func stop() {
        stopped = true
        delivery.stop()
        // Its result will reach no callback. Debug, not Exponea's error: the app asked for the stop.
        if inFlightGeneration != nil {
            logger.debug("\(SegmentsLogMessage.fetchFailedStopping)")
        }
        if coalescer.cancel() {
            logger.debug("\(SegmentsLogMessage.checkCancelledMeanwhile)")
        }
    }

    /// The check's fetch ended: applies its result if it belongs to the current customer, and ends
    /// the check.
    func checkCompleted(_ outcome: FetchOutcome) -> Completion {
        var completion = Completion()
        completion.applied = evaluate(outcome)
        completion.next = finish()
        return completion
    }

    /// The check's fetch was not made (it waited for a link and the engine stopped meanwhile): ends
    /// the check. Returns the identity to fetch for if another check starts now.
    func checkNotMade() -> IdentitySnapshot? {
        finish()
    }

    /// Starts a check now (the coalescer is checking). Returns the identity to fetch for, or `nil`
    /// if the check was skipped (no callbacks) and no other starts.
    private func start() -> IdentitySnapshot? {
        guard registry.snapshot().count > 0 else {
            logger.debug("\(SegmentsLogMessage.skippingReloadNoCallback)")
            return finish()
        }
        if registry.pendingFirstLoads == 0 {
            logger.debug("\(SegmentsLogMessage.skippingInitialNotRequired)")
        }
        let current = identity.load()
        // stop() began (its generation is raised before the engine takes the stop): no check
        // starts, as none does once the engine has it.
        guard !current.isStopped else { return finish() }
        counters.checksStarted.wrappingIncrement(ordering: .relaxed)
        // With a spin window, the delivery threads wake while the fetch runs, not after it.
        delivery.prepareForCheck()
        inFlightGeneration = current.generation
        logger.debug("Segments: Fetching segments for customer \(SegmentsLogMessage.render(current.customerIds))")
        return current
    }

    /// Tells the coalescer the check is over; returns the identity to fetch for if the next one is
    /// already due.
    private func finish() -> IdentitySnapshot? {
        inFlightGeneration = nil
        staleFlightClearAt = nil
        guard coalescer.checkFinished(at: clock.now()) == .startCheck else { return nil }
        return start()
    }

    /// Applies `outcome` if it is a success for the current customer; returns whether it did.
    private func evaluate(_ outcome: FetchOutcome) -> Bool {
        guard !stopped, !outcome.identity.isStopped else { return false }
        guard outcome.identity.generation == identity.generation else {
            counters.staleResultsDropped.wrappingIncrement(ordering: .relaxed)
            logger.debug("\(SegmentsLogMessage.checkCanceledCustomerChanged)")
            logger.debug("\(SegmentsLogMessage.newDataIgnoredDifferentCustomer)")
            return false
        }
        switch outcome.result {
        case .failure(.link(let error)):
            counters.checksFailed.wrappingIncrement(ordering: .relaxed)
            logger.warning("\(SegmentsLogMessage.mergeFailed(customerIds: outcome.identity.customerIds, error: error))")
            clearPreviousCustomer(for: outcome.identity, because: "the check failed after a customer switch")
            return false
        case .failure(.fetch(let error)):
            counters.checksFailed.wrappingIncrement(ordering: .relaxed)
            logger.error("\(SegmentsLogMessage.fetchFailed(error))")
            clearPreviousCustomer(for: outcome.identity, because: "the check failed after a customer switch")
            return false
        case .success(let response):
            counters.checksSucceeded.wrappingIncrement(ordering: .relaxed)
            apply(response, for: outcome.identity, sequence: outcome.sequence)
            return true
        }
    }

    /// A check for `snapshot`'s customer failed, or cannot start yet (a previous customer's check
    /// still in flight after one debounce window): the categories whose callbacks may still show
    /// another customer's segments (given non-empty segments of another customer, or cut off by a
    /// switch) are delivered `[]`, so a switch clears the screen within one debounce window even
    /// offline (SPEC §3 trigger 5, §4). The last known state is then forgotten: the next check
    /// that succeeds delivers every category it finds.
    private func clearPreviousCustomer(for snapshot: IdentitySnapshot, because reason: String) {
        var stale = lastKnown?.customerIds == snapshot.customerIds ? [] : Array(shownCategories)
        for category in delivery.categoriesCutOff(before: snapshot.generation) where !stale.contains(category) {
            stale.append(category)
        }
        guard !stale.isEmpty else { return }
        lastKnown = nil
        let registrations = registry.snapshot()
        var scheduled = 0
        for category in registrations.categories where stale.contains(category) {
            delivery.deliver(.init(category: category, segments: [], notifyAll: true, generation: snapshot.generation))
            delivered[category] = []
            scheduled += 1
        }
        shownCategories.subtract(stale)
        if scheduled > 0 { delivery.yieldToDeliveries() }
        logger.debug("Segments: Cleared \(scheduled) categories of the previous customer: \(reason)")
    }

    /// Diffs `response` against the last known state, stores it, and schedules the deliveries.
    private func apply(_ response: SegmentsResponse, for snapshot: IdentitySnapshot, sequence: UInt64) {
        counters.checkTimeline?.mark(.applying)
        let next = LastKnownState(customerIds: snapshot.customerIds, response: response)
        var changed = LastKnownState.changedCategories(
            from: lastKnown, to: next, shown: shownCategories, using: &comparer)
        // A delivery a switch cut off left its callbacks with what they had before it, whatever
        // the state says they were given: delivered again, as changed.
        for category in delivery.categoriesCutOff(before: snapshot.generation) where !changed.contains(category) {
            changed.append(category)
        }
        // No segment before and none now: the categories shown non-empty were none and are none
        // (read from that set, which the check keeps anyway: a look at every list costs retains).
        let nothingShownBefore = shownCategories.isEmpty
        for category in changed {
            if response[category].isEmpty {
                shownCategories.remove(category)
            } else {
                shownCategories.insert(category)
            }
        }
        if nothingShownBefore, shownCategories.isEmpty {
            logger.debug("\(SegmentsLogMessage.emptyDataFromServerAndStore)")
        }
        // Stored before the deliveries, so that a callback calling `getSegments` (whose cached
        // answer is read on the caller's thread) gets the list it was given. The previous state
        // and cache entry are let go when this function returns, after the deliveries are
        // scheduled: freeing them (dictionaries, segment lists) sat between the fetch's return
        // and the delivery thread's wake-up.
        let previous = lastKnown
        lastKnown = next
        let replacedEntry = pullCache.store(response, generation: snapshot.generation, sequence: sequence, at: clock.continuousNow())
        defer { withExtendedLifetime((previous, replacedEntry)) {} }

        let registrations = registry.snapshot()
        if registrations.count == 0 {
            // The callbacks went while the fetch was in flight.
            logger.debug("\(SegmentsLogMessage.skippingReloadNoCallback)")
        }
        let firstLoadsPending = registry.pendingFirstLoads > 0
        var scheduled = 0
        // By name, so that categories are delivered in a deterministic order.
        for category in registrations.categories {
            let isChanged = changed.contains(category)
            guard isChanged
                || (firstLoadsPending
                    && registrations.subscribers(of: category)?.containsLive(where: \.registration.hasPendingFirstLoad) == true)
            else { continue }
            // A check's first delivery is the one stamped: its callbacks run first.
            let stamped = scheduled == 0 && counters.checkTimeline != nil
            if stamped { counters.checkTimeline?.mark(.spelling) }
            // Ids spelled out once here, not by each callback that reads them; those the category's
            // last delivery held share its strings.
            let segments = response[category].spelledOut(reusing: delivered[category] ?? [])
            if stamped { counters.checkTimeline?.mark(.ready) }
            delivery.deliver(.init(
                category: category, segments: segments, notifyAll: isChanged, generation: snapshot.generation,
                stampsStart: stamped))
            delivered[category] = segments
            scheduled += 1
        }
        if scheduled > 0 { delivery.yieldToDeliveries() }
        logger.debug("Segments: Check done, changed categories: [\(changed.map(\.name).sorted().joined(separator: ", "))], delivering \(scheduled) categories")
    }
}
