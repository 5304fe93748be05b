import Dispatch
import DequeModule
import Foundation
import Logging

/// The one owner of engine state, running on the engine thread.
///
/// It drains the ingestion ring (stamping events with the customer they belong to), uploads,
/// drives the coalescer, runs checks and pull fetches through the transport, diffs results against
/// the last known state, persists, and hands deliveries to the ``DeliveryExecutor``. Nothing else
/// mutates this state, so none of it is locked. Transport calls run in tasks and report back through
/// the control inbox; the thread itself never waits on the network and never runs callbacks. The
/// fetches and links of a transport that declares ``SegmentsTransport/neverBlocks`` run their
/// steps on this thread (``EngineTaskExecutor``), between its other work.
final class EngineOwner {
    /// What the owner starts from (loaded by the client before the thread starts).
    struct Initial: Sendable {
        /// The customer ids in force when the client started: what the first ring items are
        /// stamped with (identity changes after that arrive through the ring, in order).
        var customerIds: [String: String]
        var linkedIds: [String: String]
        var lastKnown: LastKnownState?
        var pendingUploads: [UploadItem]
    }

    /// Why a check was requested (decides which "no callback" line is logged).
    enum Trigger {
        case initial, registration, identify, customerSwitch, trackedEvent
    }

    private let configuration: SegmentsConfiguration
    private let channels: EngineChannels
    private let identity: IdentityCell
    private let registry: CallbackRegistry
    private let pullCache: PullCache
    private let counters: EngineCounters
    private let clock: any SegmentsClock
    private let logger: Logger
    private let store: StateStore?
    private let delivery: DeliveryExecutor
    /// Where fetches and links run: on this thread (see ``EngineTaskExecutor``) if the transport
    /// never blocks, else `nil` (Swift's cooperative pool).
    private let fetchExecutor: EngineTaskExecutor?

    private var coalescer: CoalescerStateMachine
    private var lastKnown: LastKnownState?
    /// Buffers for comparing categories as sets, kept so that a changed category allocates nothing.
    private var comparer = SegmentSetComparer()
    /// What the server links a cookie to, as far as the engine knows: `nil` while a link is in
    /// flight or after one failed, so that the next fetch with hard ids links first.
    private var serverLink: (cookie: String, ids: [String: String])?
    /// A fetch that sends link-ids is in flight. The server resolves a cookie to the customer
    /// linked last, so no second link starts until it ends: the link the engine sent last is then
    /// the one the server holds.
    private var linkingFetchInFlight = false
    /// A check or pull fetch that must link and waits for the linking fetch in flight.
    private var checkAwaitsLink = false
    private var pullAwaitsLink = false
    /// The customer ids events are stamped with, and the generation they belong to. Identity
    /// changes made on two threads can reach the ring in the other order than they were
    /// published: the newer generation wins, so stamping follows ``SegmentsClient/customerIds``.
    private var stampingIds: [String: String]
    private var stampingGeneration: UInt64 = 0
    /// Categories whose callbacks were last given non-empty segments: after a customer switch,
    /// those the new customer's response lacks are delivered as `[]` (SPEC §4).
    private var shownCategories: Set<SegmentCategory>

    private var uploads: UploadQueue
    private var uploadRetryAt: SegmentsInstant?
    private var random = SystemRandomNumberGenerator()
    private let deadLetters: DeadLetterFile?
    private var flushRequested = false
    private var nextPeriodicFlush: SegmentsInstant?

    private var pullWaiters: [(category: SegmentCategory, completion: PullCompletion)] = []
    private var pullInFlight = false
    private var pullAttempts = 0

    private var stopping = false
    /// During the current pass over the inbox, a step of a fetch ran on this thread or such a fetch
    /// started: its next step, or its result, may already wait in the inbox.
    private var fetchStepsThisPass = false
    private var finalUploadFailed = false
    private var stateDirty = false
    /// Whether the state file last written lists unsent uploads: after uploads are answered it is
    /// written again, so that a restart does not send those events a second time.
    private var persistedUploads = false
    /// When the state file, listing uploads answered since, is next rewritten while uploads keep
    /// going out: at most once per ``answeredUploadsRewriteInterval``, and at once when the queue
    /// empties, so steady tracking does not rewrite the whole file per upload.
    private var answeredUploadsRewriteAt: SegmentsInstant?
    private static let answeredUploadsRewriteInterval = Duration.seconds(1)
    private var barriers: [DispatchSemaphore] = []
    /// The control messages of the current loop turn; its buffer is traded with the inbox's (see
    /// ``EngineChannels/takeMessages(into:)``).
    private var messages: [ControlMessage] = []

    /// Ring items handled per loop turn before control messages get a turn.
    private static let drainBatch = 4096
    /// Passes over the inbox per turn while steps of transport calls keep posting more.
    private static let messagePassesPerTurn = 4
    /// While events flow, the engine looks at the ring this often instead of being woken per event
    /// (``EngineChannels/linger(nanoseconds:)``). Events wait at most this long before they are
    /// stamped and queued for upload, which is far below any debounce or flush interval.
    private static let lingerNanoseconds: UInt64 = 1_000_000
    /// Consecutive looks that found the ring empty before the engine sleeps until signalled again:
    /// an idle app costs no periodic wake-ups, only the first event after a pause pays a signal.
    private static let lingerLooks = 10

    init(
        configuration: SegmentsConfiguration, channels: EngineChannels, identity: IdentityCell,
        registry: CallbackRegistry, pullCache: PullCache, counters: EngineCounters, initial: Initial
    ) {
        self.configuration = configuration
        self.channels = channels
        self.identity = identity
        self.registry = registry
        self.pullCache = pullCache
        self.counters = counters
        self.clock = configuration.clock
        self.logger = configuration.logger
        self.store = configuration.stateDirectory.map(StateStore.init(directory:))
        self.fetchExecutor = configuration.transport.neverBlocks ? EngineTaskExecutor(channels: channels) : nil
        self.delivery = DeliveryExecutor(
            registry: registry, identity: identity, channels: channels, mode: configuration.deliveryMode,
            logger: configuration.logger, counters: counters)
        self.coalescer = CoalescerStateMachine(
            timing: .init(debounce: configuration.debounce, maxWait: configuration.maxWait))
        self.lastKnown = initial.lastKnown
        // The state file's linked ids belong to the cookie it holds, the one the client starts with.
        if let cookie = initial.customerIds[CustomerIdKey.cookie], !initial.linkedIds.isEmpty {
            self.serverLink = (cookie, initial.linkedIds)
        }
        self.stampingIds = initial.customerIds
        self.shownCategories = Set((initial.lastKnown?.categories ?? [:]).compactMap { $0.value.isEmpty ? nil : $0.key })
        self.uploads = UploadQueue(initial.pendingUploads)
        self.deadLetters = configuration.stateDirectory.map(DeadLetterFile.init(directory:))
    }

    // MARK: Loop

    /// Runs until ``ControlMessage/stop`` has been handled and the final upload attempt is over.
    func run() {
        stateDirty = true
        if case .periodic(let interval) = configuration.flushingMode {
            nextPeriodicFlush = clock.now() + interval
        }
        requestCheck(.initial)
        var emptyLooks = Self.lingerLooks
        while true {
            let drained = drainRing()
            emptyLooks = drained > 0 ? 0 : emptyLooks + 1
            var handledMessages = 0
            // A step of a fetch run here may post more (the fetch's result), and a message may
            // start a fetch whose first step then waits in the inbox (a `getSegments` miss): both
            // are taken in this same turn, without another drain of the ring and a persist in
            // between. Still before the timers are evaluated, so a barrier keeps its meaning.
            // Bounded, against a task that keeps re-enqueuing itself.
            var passes = 0
            repeat {
                fetchStepsThisPass = false
                channels.takeMessages(into: &messages)
                for message in messages {
                    if handle(message) { handledMessages += 1 }
                }
                // After the loop, which held the buffer: emptied in place, so the capacity is kept.
                messages.removeAll(keepingCapacity: true)
                passes += 1
            } while fetchStepsThisPass && passes < Self.messagePassesPerTurn
            if channels.takeReloadRequest() {
                requestCheck(.registration)
            }
            let now = clock.now()
            if !stopping, coalescer.tick(at: now) == .startCheck {
                startCheck()
            }
            pumpUploads(at: now)
            persistIfNeeded()
            let finished = stopping && !uploads.isInFlight
                && (uploads.isEmpty || finalUploadFailed || uploads.pausedBy != nil) && channels.ring.isEmpty
            if finished {
                finishStop()
            }
            // A message stops counting as outstanding only now, after the work it caused (a next
            // upload, a check, deliveries) has been started and counted: otherwise an observer
            // could see "nothing outstanding" between the two and call the engine idle too early.
            for _ in 0..<handledMessages { channels.endWork() }
            for barrier in barriers {
                channels.endWork()
                barrier.signal()
            }
            barriers.removeAll()
            if finished {
                channels.closeInbox()
                return
            }
            if drained == Self.drainBatch { continue }  // more is waiting
            let deadline = nextDeadline()
            if emptyLooks < Self.lingerLooks && !stopping && !isDue(deadline) {
                channels.linger(nanoseconds: Self.lingerNanoseconds)
            } else {
                channels.sleep(until: deadline, clock: clock)
            }
        }
    }

    /// `true` if `deadline` has passed on the engine's clock (the next turn has timed work to do).
    private func isDue(_ deadline: SegmentsInstant?) -> Bool {
        deadline.map { $0 <= clock.now() } ?? false
    }

    private func nextDeadline() -> SegmentsInstant? {
        var deadline = stopping ? nil : coalescer.deadline
        func consider(_ candidate: SegmentsInstant?) {
            guard let candidate else { return }
            deadline = deadline.map { min($0, candidate) } ?? candidate
        }
        if !uploads.isEmpty && !uploads.isInFlight { consider(uploadRetryAt) }
        consider(nextPeriodicFlush)
        consider(answeredUploadsRewriteAt)
        return deadline
    }

    // MARK: Ingestion

    /// Moves what the ring holds (up to ``drainBatch`` items) into engine state; returns how many.
    @discardableResult
    private func drainRing() -> Int {
        var handled = 0
        // Events the app did not stamp get the wall clock read once per batch (see `trackEvent`).
        // The read comes after a look at how many slots are claimed, and serves only the events
        // of those slots: each of their calls claimed its slot before the read, so no stamp comes
        // before its call. An event claimed later gets a read of its own, again for every slot
        // claimed by then.
        var stamp = 0.0
        var stampCovers = Int.min
        while handled < Self.drainBatch {
            let position = channels.ring.nextDequeuePosition
            guard let item = channels.ring.dequeue() else { break }
            handled += 1
            // `consume` moves the payload into engine state. Bound as copies, an event's type and
            // properties were retained and released once more here, on the engine's core: an app
            // that passes the same dictionary to every call then had its reference count cross
            // between its core and the engine's twice per event (`tracking-storm`'s cross-core
            // `trackEvent` with properties was 2.4–2.9× the bare event; with the move, 1.2–1.3× at
            // `20aa13d`).
            switch consume item {
            case .event(let eventType, let properties, var timestamp):
                if timestamp.isNaN {
                    if position >= stampCovers {
                        stampCovers = channels.ring.claimedPositions
                        stamp = clock.wallClockSeconds()
                    }
                    timestamp = stamp
                }
                uploads.append(.event(TrackedEvent(
                    customerIds: stampingIds, eventType: eventType, timestamp: timestamp, properties: properties)))
            case .identify(let snapshot, let properties, let namedHardId):
                adoptForStamping(snapshot)
                // The update goes out with the ids the call was made under, even when a newer
                // identity already took over stamping: it says who had these properties then.
                uploads.append(.customer(CustomerUpdate(customerIds: snapshot.customerIds, properties: properties)))
                stateDirty = true
                if namedHardId { requestCheck(.identify) }
            case .anonymize(let snapshot):
                adoptForStamping(snapshot)
                if coalescer.cancel() {
                    logger.debug("\(SegmentsLogMessage.checkCancelledMeanwhile)")
                }
                // `anonymize()` publishes the new customer before it queues this item, so a check
                // started in between already fetched for the new customer, and its data may have
                // been delivered: that state is kept, or the next check would deliver it again.
                if lastKnown?.customerIds != snapshot.customerIds { lastKnown = nil }
                pullCache.clear()
                stateDirty = true
                // The listeners now belong to a new customer: let them learn its segments.
                requestCheck(.customerSwitch)
            }
        }
        return handled
    }

    /// Stamps the events that follow with `snapshot`'s ids, unless a newer identity already does.
    private func adoptForStamping(_ snapshot: IdentitySnapshot) {
        guard snapshot.generation >= stampingGeneration else {
            logger.debug("Segments: An identity change reached the engine after a newer one; events keep the newer customer")
            return
        }
        stampingGeneration = snapshot.generation
        stampingIds = snapshot.customerIds
    }

    // MARK: Control messages

    /// Handles one message; returns `false` for a barrier (released separately at the end of the turn).
    private func handle(_ message: ControlMessage) -> Bool {
        switch message {
        case .barrier(let semaphore):
            // Signalled at the end of this turn, after timers have been evaluated.
            barriers.append(semaphore)
            return false
        case .getSegments(let category, let force, let completion):
            handlePull(category: category, force: force, completion: completion)
        case .flush:
            flushRequested = true
        case .stop:
            beginStop()
        case .fetchCompleted(let outcome):
            switch outcome.purpose {
            case .check: handleCheckCompleted(outcome)
            case .pull: handlePullCompleted(outcome)
            }
            resumeFetchesAwaitingLink()
        case .uploadCompleted(let outcome):
            handleUploadCompleted(outcome)
        case .runJob(let job, let executor):
            fetchStepsThisPass = true
            job.runSynchronously(on: executor)
        }
        return true
    }

    // MARK: Listener checks

    private func requestCheck(_ trigger: Trigger) {
        guard !stopping else { return }
        guard registry.snapshot().count > 0 else {
            switch trigger {
            case .initial: logger.debug("\(SegmentsLogMessage.skippingInitialNoCallback)")
            case .identify, .customerSwitch, .trackedEvent:
                logger.debug("\(SegmentsLogMessage.skippingAfterTrackedEvent)")
            case .registration: logger.debug("\(SegmentsLogMessage.skippingReloadNoCallback)")
            }
            return
        }
        logger.trace("Segments: Reload requested (\(trigger))")
        if coalescer.request(at: clock.now()) == .startCheck {
            startCheck()
        }
    }

    private func startCheck() {
        guard registry.snapshot().count > 0 else {
            logger.debug("\(SegmentsLogMessage.skippingReloadNoCallback)")
            finishCheck()
            return
        }
        if registry.pendingFirstLoads == 0 {
            logger.debug("\(SegmentsLogMessage.skippingInitialNotRequired)")
        }
        counters.checksStarted.wrappingIncrement(ordering: .relaxed)
        let current = identity.load()
        logger.debug("Segments: Fetching segments for customer \(SegmentsLogMessage.render(current.customerIds))")
        launchFetch(.check, for: current)
    }

    /// Tells the coalescer the check is over, and starts the next one if it is already due.
    private func finishCheck() {
        if coalescer.checkFinished(at: clock.now()) == .startCheck {
            startCheck()
        }
    }

    @inline(never)
    private func launchFetch(_ purpose: FetchPurpose, for identity: IdentitySnapshot) {
        let hardIds = identity.hardIds
        let mustLink = !hardIds.isEmpty && !(serverLink?.cookie == identity.cookie && serverLink?.ids == hardIds)
        if mustLink {
            guard !linkingFetchInFlight else {
                logger.trace("Segments: Fetch waits for the link-ids request in flight to end")
                switch purpose {
                case .check: checkAwaitsLink = true
                case .pull: pullAwaitsLink = true
                }
                return
            }
            linkingFetchInFlight = true
            serverLink = nil
        }
        let transport = configuration.transport
        let context = configuration.requestContext
        let channels = channels
        let counters = counters
        let link = mustLink ? hardIds : nil
        if fetchExecutor != nil { fetchStepsThisPass = true }
        channels.beginWork()
        Task(executorPreference: fetchExecutor) { @Sendable in
            let outcome = await performFetch(
                purpose, identity: identity, link: link, transport: transport,
                context: context, counters: counters)
            channels.post(.fetchCompleted(outcome))
            channels.endWork()
        }
    }

    /// Records what the server links the cookie to after a fetch that sent link-ids: the ids if it
    /// was answered as done (whether or not the fetch is still current), else unknown.
    private func recordLink(_ outcome: FetchOutcome) {
        guard outcome.linkAttempted else { return }
        linkingFetchInFlight = false
        serverLink = outcome.linked.map { (outcome.identity.cookie, $0) }
        stateDirty = true
    }

    /// Starts the fetches that waited for a linking fetch to end, for the customer current now.
    private func resumeFetchesAwaitingLink() {
        guard !linkingFetchInFlight else { return }
        if checkAwaitsLink {
            checkAwaitsLink = false
            if stopping { finishCheck() } else { launchFetch(.check, for: identity.load()) }
        }
        if pullAwaitsLink {
            pullAwaitsLink = false
            if stopping { pullInFlight = false } else { launchFetch(.pull, for: identity.load()) }
        }
    }

    // Out of line (once per check), like `launchFetch` and `performFetch`: `segments-bench`'s
    // instruction counts of a check collect inside these functions.
    @inline(never)
    private func handleCheckCompleted(_ outcome: FetchOutcome) {
        defer { finishCheck() }
        recordLink(outcome)
        guard !stopping else { return }
        guard outcome.identity.generation == identity.generation else {
            counters.staleResultsDropped.wrappingIncrement(ordering: .relaxed)
            logger.debug("\(SegmentsLogMessage.checkCanceledCustomerChanged)")
            logger.debug("\(SegmentsLogMessage.newDataIgnoredDifferentCustomer)")
            return
        }
        switch outcome.result {
        case .failure(.link(let error)):
            counters.checksFailed.wrappingIncrement(ordering: .relaxed)
            logger.warning("\(SegmentsLogMessage.mergeFailed(customerIds: outcome.identity.customerIds, error: error))")
        case .failure(.fetch(let error)):
            counters.checksFailed.wrappingIncrement(ordering: .relaxed)
            logger.error("\(SegmentsLogMessage.fetchFailed(error))")
        case .success(let response):
            counters.checksSucceeded.wrappingIncrement(ordering: .relaxed)
            apply(response, for: outcome.identity)
        }
    }

    /// Diffs `response` against the last known state, stores it, and schedules the deliveries.
    private func apply(_ response: SegmentsResponse, for snapshot: IdentitySnapshot) {
        let next = LastKnownState(customerIds: snapshot.customerIds, response: response)
        let changed = LastKnownState.changedCategories(
            from: lastKnown, to: next, shown: shownCategories, using: &comparer)
        for category in changed {
            if response[category].isEmpty {
                shownCategories.remove(category)
            } else {
                shownCategories.insert(category)
            }
        }
        // The previous state and cache entry are let go when this function returns, after the
        // deliveries are scheduled: freeing them (dictionaries, segment lists) sat
        // between the fetch's return and the delivery thread's wake-up.
        let previous = lastKnown
        lastKnown = next
        stateDirty = true
        let replacedEntry = pullCache.store(response, generation: snapshot.generation, at: clock.now())
        defer { withExtendedLifetime((previous, replacedEntry)) {} }

        let registrations = registry.snapshot()
        let firstLoadsPending = registry.pendingFirstLoads > 0
        var scheduled = 0
        // Sorted so that categories are delivered in a deterministic order.
        for category in registrations.byCategory.keys.sorted(by: { $0.name < $1.name }) {
            let isChanged = changed.contains(category)
            guard isChanged
                || (firstLoadsPending
                    && registrations.subscribers(of: category)?.containsLive(where: \.registration.hasPendingFirstLoad) == true)
            else { continue }
            // Ids spelled out once here, not by each callback that reads them.
            delivery.deliver(.init(
                category: category, segments: response[category].spelledOut(), notifyAll: isChanged,
                generation: snapshot.generation))
            scheduled += 1
        }
        if scheduled > 0 { delivery.yieldToDeliveries() }
        logger.debug("Segments: Check done, changed categories: [\(changed.map(\.name).sorted().joined(separator: ", "))], delivering \(scheduled) categories")
    }

    // MARK: Pull (getSegments)

    private func handlePull(category: SegmentCategory, force: Bool, completion: @escaping PullCompletion) {
        guard !stopping else {
            complete(completion, with: .failure(.stopped))
            return
        }
        let current = identity.load()
        if !force, let cached = pullCache.lookup(category, generation: current.generation, now: clock.now()) {
            counters.pullCacheHits.wrappingIncrement(ordering: .relaxed)
            complete(completion, with: .success(cached))
            return
        }
        pullWaiters.append((category, completion))
        if pullInFlight {
            logger.trace("Segments: Manual fetch is already in progress, waiting for result")
            return
        }
        pullAttempts = 1
        startPullFetch(for: current)
    }

    private func startPullFetch(for snapshot: IdentitySnapshot) {
        pullInFlight = true
        counters.pullFetches.wrappingIncrement(ordering: .relaxed)
        launchFetch(.pull, for: snapshot)
    }

    private func handlePullCompleted(_ outcome: FetchOutcome) {
        pullInFlight = false
        recordLink(outcome)
        guard !stopping else {
            completePullWaiters(with: .failure(.stopped))
            return
        }
        let current = identity.load()
        guard outcome.identity.generation == current.generation else {
            if pullAttempts <= configuration.maxPullRefetches {
                pullAttempts += 1
                logger.debug("Segments: Repeating manual fetch because customer has changed")
                startPullFetch(for: current)
            } else {
                logger.warning("Segments: Manual fetch gave up after \(pullAttempts) attempts: customer kept changing")
                completePullWaiters(with: .failure(.customerChanged))
            }
            return
        }
        switch outcome.result {
        case .success(let response):
            pullCache.store(response, generation: current.generation, at: clock.now())
            completePullWaiters(with: .success(response))
        case .failure(.link(let error)):
            logger.warning("\(SegmentsLogMessage.mergeFailed(customerIds: outcome.identity.customerIds, error: error))")
            completePullWaiters(with: .failure(error))
        case .failure(.fetch(let error)):
            logger.error("\(SegmentsLogMessage.fetchFailed(error))")
            completePullWaiters(with: .failure(error))
        }
    }

    private func completePullWaiters(with result: Result<SegmentsResponse, SegmentsError>) {
        let waiters = pullWaiters
        pullWaiters.removeAll()
        for waiter in waiters {
            complete(waiter.completion, with: result.map { $0[waiter.category] })
        }
    }

    private func complete(_ completion: @escaping PullCompletion, with result: Result<[Segment], SegmentsError>) {
        channels.runInBackground { completion(result.map { $0.spelledOut() }) }
    }

    // MARK: Uploads

    private func pumpUploads(at now: SegmentsInstant) {
        if case .periodic(let interval) = configuration.flushingMode, let due = nextPeriodicFlush, now >= due {
            flushRequested = true
            nextPeriodicFlush = now + interval
        }
        if let due = answeredUploadsRewriteAt, now >= due {
            answeredUploadsRewriteAt = nil
            stateDirty = true
        }
        guard !uploads.isInFlight, !uploads.isEmpty else {
            if uploads.isEmpty { flushRequested = false }
            return
        }
        if stopping {
            guard !finalUploadFailed else { return }
        } else {
            if let retryAt = uploadRetryAt, now < retryAt { return }
            guard configuration.flushingMode == .immediate || flushRequested else { return }
        }
        startUpload()
    }

    private func startUpload() {
        guard let upload = uploads.next(maxBatchSize: configuration.maxUploadBatchSize) else { return }
        let transport = configuration.transport
        let context = configuration.requestContext
        let channels = channels
        channels.beginWork()
        Task {
            var failure: SegmentsError?
            do throws(SegmentsError) {
                switch upload {
                case .customer(let update): try await transport.identifyCustomer(update, context: context)
                case .events(let events): try await transport.trackEvents(events, context: context)
                }
            } catch {
                failure = error
            }
            channels.post(.uploadCompleted(UploadOutcome(error: failure)))
            channels.endWork()
        }
    }

    private func handleUploadCompleted(_ outcome: UploadOutcome) {
        let resolution = uploads.resolve(outcome.error, policy: configuration.uploadRetry, random: &random)
        if resolution.removed > 0 {
            uploadRetryAt = nil
            if persistedUploads {
                if uploads.isEmpty {
                    stateDirty = true
                } else if answeredUploadsRewriteAt == nil {
                    answeredUploadsRewriteAt = clock.now() + Self.answeredUploadsRewriteInterval
                }
            }
        }
        if !resolution.setAside.isEmpty { setAside(resolution.setAside) }
        if resolution.eventsDelivered > 0 {
            counters.eventsUploaded.wrappingIncrement(by: resolution.eventsDelivered, ordering: .relaxed)
            requestCheck(.trackedEvent)
        }
        guard let error = resolution.failure else { return }
        counters.uploadFailures.wrappingIncrement(ordering: .relaxed)
        if resolution.paused {
            logger.error(
                "Segments: Uploads stopped: \(error). \(uploads.count) unsent uploads are kept\(store == nil ? "" : " and saved at stop"); uploads resume when the client is started with a configuration the server accepts")
            stateDirty = true
            return
        }
        guard let delay = resolution.retryDelay else {
            // A refused upload being split, or its refused command set aside: the rest goes at once.
            logger.debug("Segments: Upload refused (\(error)); sending it in smaller parts to find the refused commands")
            return
        }
        if stopping {
            finalUploadFailed = true
            logger.warning("Segments: Final upload before stop failed: \(error)")
            return
        }
        uploadRetryAt = clock.now() + delay
        logger.warning("Segments: Upload of \(uploadDescription) failed: \(error); kept, retrying in \(delay)")
        // While uploads fail (offline, an outage), what waits is written down at each failure,
        // so a process that dies before stop() loses at most what was tracked since the last
        // one. Written once per retry, not per event: the backoff bounds how often.
        stateDirty = true
    }

    /// What the next upload carries, for a log line.
    private var uploadDescription: String {
        if case .customer = uploads.items.first { return "customer update" }
        let events = uploads.items.prefix(configuration.maxUploadBatchSize).prefix { if case .event = $0 { true } else { false } }
        return "\(events.count) events"
    }

    /// Sets aside uploads the server refused for good: appended to the dead-letter file, with one
    /// `Segments:` error line for the lot.
    private func setAside(_ refused: [(item: UploadItem, reason: String)]) {
        counters.uploadsSetAside.wrappingIncrement(by: refused.count, ordering: .relaxed)
        let events = refused.count { if case .event = $0.item { true } else { false } }
        let what = [(events, "tracked events"), (refused.count - events, "customer updates")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: " and ")
        let reasons = Array(Set(refused.map(\.reason))).sorted()
        let why = reasons.prefix(3).joined(separator: "; ") + (reasons.count > 3 ? "; …" : "")
        guard let deadLetters else {
            logger.error("Segments: The server refused \(what) for good (\(why)); discarded: configure stateDirectory to keep them")
            return
        }
        let now = clock.wallClockSeconds()
        do {
            let replaced = try deadLetters.append(refused.map { .init(reason: $0.reason, setAsideAt: now, item: $0.item) })
            logger.error("Segments: The server refused \(what) for good (\(why)); set aside in \(deadLetters.fileURL.path)")
            if !replaced.isEmpty {
                logger.error("Segments: Set aside with numbers JSON cannot carry written as null: \(replaced.joined(separator: ", "))")
            }
        } catch {
            logger.error("Segments: The server refused \(what) for good (\(why)); could not set them aside in \(deadLetters.fileURL.path): \(error)")
        }
    }

    // MARK: Stop and persistence

    private func beginStop() {
        stopping = true
        if coalescer.cancel() {
            logger.debug("\(SegmentsLogMessage.checkCancelledMeanwhile)")
        }
        completePullWaiters(with: .failure(.stopped))
        nextPeriodicFlush = nil
    }

    private func finishStop() {
        drainRing()
        if !uploads.isEmpty {
            if store != nil {
                logger.notice("Segments: \(uploads.count) unsent uploads kept for the next start")
            } else {
                logger.error(
                    "Segments: \(uploads.count) unsent uploads are lost at stop: configure stateDirectory to keep them")
            }
        }
        stateDirty = true
        persistIfNeeded()
    }

    /// Writes the state if it changed. Unsent uploads are included, so events restored at start, or
    /// waiting while uploads fail, are not lost if the process dies before they go out.
    private func persistIfNeeded() {
        guard stateDirty, let store else { return }
        stateDirty = false
        let state = PersistedState(
            customerIds: identity.load().customerIds,
            linkedIds: serverLink.flatMap { $0.cookie == identity.load().cookie ? $0.ids : nil } ?? [:],
            lastKnown: lastKnown.map { known in
                PersistedState.LastKnown(
                    customerIds: known.customerIds,
                    categories: Dictionary(uniqueKeysWithValues: known.categories.map { ($0.key.name, $0.value) }))
            },
            pendingUploads: Array(uploads.items))
        do {
            let (replaced, bytes) = try store.save(state)
            counters.stateWrites.wrappingIncrement(ordering: .relaxed)
            counters.stateBytesWritten.wrappingIncrement(by: bytes, ordering: .relaxed)
            persistedUploads = !state.pendingUploads.isEmpty
            answeredUploadsRewriteAt = nil
            if !replaced.isEmpty {
                logger.error("Segments: State saved with numbers JSON cannot carry written as null: \(replaced.joined(separator: ", "))")
            }
        } catch {
            logger.error("Segments: Could not save state to \(store.fileURL.path): \(error)")
        }
    }
}

/// Links (if asked) and fetches for `identity`; never throws, the failure is in the outcome.
@inline(never)
private func performFetch(
    _ purpose: FetchPurpose, identity: IdentitySnapshot, link: [String: String]?,
    transport: any SegmentsTransport, context: SegmentsRequestContext, counters: EngineCounters
) async -> FetchOutcome {
    if let link {
        counters.linkCalls.wrappingIncrement(ordering: .relaxed)
        do {
            try await transport.linkCustomerIds(cookie: identity.cookie, externalIds: link, context: context)
        } catch {
            return FetchOutcome(
                purpose: purpose, identity: identity, linked: nil, linkAttempted: true, result: .failure(.link(error)))
        }
    }
    do {
        let response = try await transport.fetchSegments(cookie: identity.cookie, context: context)
        return FetchOutcome(
            purpose: purpose, identity: identity, linked: link, linkAttempted: link != nil, result: .success(response))
    } catch {
        return FetchOutcome(
            purpose: purpose, identity: identity, linked: link, linkAttempted: link != nil, result: .failure(.fetch(error)))
    }
}
