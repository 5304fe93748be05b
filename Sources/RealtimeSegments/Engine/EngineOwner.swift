import Dispatch
import DequeModule
import Foundation
import Logging

/// The one owner of engine state: the coordinator that runs the engine thread's loop.
///
/// Each turn it drains the ingestion ring (stamping events with the customer they belong to and
/// queueing them for upload), routes the control inbox's messages, evaluates the timers, starts
/// uploads and writes the state. The jobs live in types it owns and drives, each holding its own
/// state: ``CheckCycle`` (listener checks: coalescing, diff, hand-off to delivery),
/// ``PullCoordinator`` (`getSegments` fetches and their waiters), ``LinkTracker`` (link-ids before
/// fetches), ``UploadQueue`` and ``UploadSchedule`` (what goes out next, and when) and
/// ``StatePersister`` (the state and dead-letter files). The owner launches the transport calls
/// they decide on, routes each answer back to the type it belongs to, and runs the stop protocol.
///
/// Threading: the owner and the types it owns are used on the engine thread only; nothing else
/// mutates their state, so none of it is locked. Transport calls run in tasks and report back through the
/// control inbox; the thread itself never waits on the network and never runs callbacks. The
/// fetches and links of a transport that declares ``SegmentsTransport/neverBlocks`` run their
/// steps on this thread (``EngineTaskExecutor``), between its other work; such a fetch's last step
/// applies its result there and then, in this owner's turn, instead of posting it.
final class EngineOwner {
    /// What the owner starts from (loaded by the client before the thread starts).
    struct Initial: Sendable {
        /// The customer ids in force when the client started: what the first ring items are
        /// stamped with (identity changes after that arrive through the ring, in order).
        var customerIds: [String: String]
        var linkedIds: [String: String]
        var lastKnown: LastKnownState?
        /// Unsent uploads of the state file (written at the last stop, or while uploads failed).
        var pendingUploads: [UploadItem]
        /// What the event journal held, if one is configured: its items are queued before
        /// ``pendingUploads`` (which are older only when the previous run had no journal, which
        /// left the journal empty, or newer: those it kept in memory only).
        var journal: JournalRecovery? = nil
        /// Why the journal configured is not used this run, if it is not.
        var journalSetAside: String? = nil
        /// The client's hold on its state directory, released once the engine has ended.
        var stateLock: StateDirectoryLock? = nil
    }

    private let configuration: SegmentsConfiguration
    private let channels: EngineChannels
    private let identity: IdentityCell
    private let pullCache: PullCache
    private let counters: EngineCounters
    private let clock: any SegmentsClock
    private let logger: Logger
    /// Where fetches and links run: on this thread (see ``EngineTaskExecutor``) if the transport
    /// never blocks, else `nil` (a serial queue per fetch, see ``launchFetchOffThePool(_:for:link:)``).
    private let fetchExecutor: EngineTaskExecutor?
    /// Where uploads run: off the cooperative pool, which `stop()` may be blocking (see
    /// ``SerialQueueTaskExecutor``), marking ``EngineChannels/uploadThread``.
    private let uploadExecutor: SerialQueueTaskExecutor
    /// When a successful fetch, or a retry, last resumed uploads stopped by a configuration error.
    private var lastUploadResume: SegmentsInstant?
    /// While uploads are stopped by a configuration error: when one upload is retried, so that an
    /// app that never fetches (it only tracks) does not wait for a fetch to resume them.
    private var stoppedUploadsRetryAt: SegmentsInstant?
    /// How many retries of stopped uploads (a fetch's resume included) were refused again, with
    /// any configuration error, since the server last took an upload: each doubles the wait
    /// before the next (``stoppedUploadsRetryDelay()``).
    private var stoppedUploadsRetries = 0
    /// The configuration error that stopped uploads, from a retry (or a resume after a fetch,
    /// `byFetch`, which announced itself) until the server accepts an upload or stops them again.
    private var retryingStoppedBy: (error: SegmentsError, byFetch: Bool)?
    /// The longest wait between two retries of uploads a configuration error stopped (unless the
    /// upload policy's ``RetryPolicy/maximum`` is longer).
    static let longestStoppedUploadsRetry = Duration.seconds(3_600)

    private let checks: CheckCycle
    private var pulls: PullCoordinator
    /// Read and written on the engine thread alone, by calls that never overlap (no method that
    /// holds it calls out): its run-time exclusivity check, paid on every fetch, is turned off.
    @exclusivity(unchecked) private var links: LinkTracker
    private let persister: StatePersister
    /// Released after the last save (``finishStop()``): another client may use the directory then.
    private let stateLock: StateDirectoryLock?

    /// The customer ids events are stamped with, and the generation they belong to. Identity
    /// changes made on two threads can reach the ring in the other order than they were
    /// published: the newer generation wins, so stamping follows ``SegmentsClient/customerIds``.
    private var stampingIds: [String: String]
    private var stampingGeneration: UInt64 = 0

    private var uploads: UploadQueue
    /// The write-ahead journal of ``uploads``, if one is configured.
    private let journal: EventJournal?
    /// Why ``journal`` is `nil` although one is configured (``Initial/journalSetAside``).
    private let journalSetAside: String?
    /// ``SegmentsClient/flushJournal()`` calls waiting for the ring position they name to be
    /// drained and committed.
    private var journalWaiters: [(through: Int, completion: JournalFlushCompletion)] = []
    private var uploadSchedule: UploadSchedule
    private var random = SystemRandomNumberGenerator()

    private var stopping = false
    /// Whether the state file was written as the engine took the stop (``beginStop()``).
    private var savedAsStopBegan = false
    /// The number of the last fetch launched (``FetchOutcome/sequence``).
    private var fetchSequence: UInt64 = 0
    /// The upload in flight started after stop: its failure is the final attempt's. One that was
    /// already out when stop came leaves the final attempt still to be made.
    private var uploadInFlightIsFinalAttempt = false
    /// During the current pass over the inbox, a step of a fetch ran on this thread or such a fetch
    /// started: its next step, or its result, may already wait in the inbox.
    private var fetchStepsThisPass = false
    /// Barriers taken from the inbox, and the ring position each waits for the drain to reach.
    private var barriers: [(semaphore: DispatchSemaphore, through: Int)] = []
    /// The control messages of the current loop turn; its buffer is traded with the inbox's (see
    /// ``EngineChannels/takeMessages(into:)``).
    private var messages: [ControlMessage] = []

    /// Ring items handled per loop turn before control messages get a turn.
    private static let drainBatch = 4096
    /// Uploads one task sends, one after another, before it reports back. A turn starts at most
    /// one task, so with one upload per task a turn that drained more than an upload carries let
    /// the queue outgrow the uploads while events arrive flat out, however fast the transport
    /// answered; and a backlog (after an outage) went out at one round trip through the engine
    /// thread per upload, which on a busy machine waits for a core. 16 uploads of the default 500
    /// events carry more than a turn drains.
    private static let uploadsPerTask = 16
    /// Passes over the inbox per turn while steps of transport calls keep posting more.
    private static let messagePassesPerTurn = 4
    /// While events flow, the engine looks at the ring this often instead of being woken per event
    /// (``EngineChannels/linger(nanoseconds:)``). Events wait at most this long before they are
    /// stamped and queued for upload, which is far below any debounce or flush interval.
    static let lingerNanoseconds: UInt64 = 1_000_000
    /// Consecutive looks that found the ring empty before the engine sleeps until signalled again:
    /// an idle app costs no periodic wake-ups, only the first event after a pause pays a signal.
    private static let lingerLooks = 10
    /// Consecutive turns that found the ring empty (see ``lingerLooks``).
    private var emptyLooks = EngineOwner.lingerLooks

    init(
        configuration: SegmentsConfiguration, channels: EngineChannels, identity: IdentityCell,
        registry: CallbackRegistry, pullCache: PullCache, counters: EngineCounters, initial: Initial
    ) {
        self.configuration = configuration
        self.channels = channels
        uploadExecutor = SerialQueueTaskExecutor(label: "Segments.upload", marking: channels.uploadThread)
        self.identity = identity
        self.pullCache = pullCache
        self.counters = counters
        self.clock = configuration.clock
        self.logger = configuration.logger
        self.fetchExecutor = configuration.transport.neverBlocks ? EngineTaskExecutor(channels: channels) : nil
        self.checks = CheckCycle(
            configuration: configuration, channels: channels, identity: identity, registry: registry,
            pullCache: pullCache, counters: counters, lastKnown: initial.lastKnown)
        self.pulls = PullCoordinator(maxRefetches: configuration.maxPullRefetches)
        // The state file's linked ids belong to the cookie it holds, the one the client starts with.
        self.links = LinkTracker(cookie: initial.customerIds[CustomerIdKey.cookie], linkedIds: initial.linkedIds)
        self.persister = StatePersister(configuration: configuration, counters: counters)
        self.stateLock = initial.stateLock
        self.stampingIds = initial.customerIds
        let replayed = initial.journal?.entries.map(\.item) ?? []
        self.uploads = UploadQueue(replayed + initial.pendingUploads)
        self.journalSetAside = initial.journalSetAside
        if let journalConfiguration = configuration.journal, let recovery = initial.journal {
            let journal = EventJournal(
                configuration: journalConfiguration, recovery: recovery,
                logger: configuration.logger, counters: counters)
            // The state file's uploads join the journal in the first commit; the state file
            // drops them when it is next written, after that commit.
            for item in initial.pendingUploads { journal.queue(item) }
            self.journal = journal
        } else {
            self.journal = nil
        }
        self.uploadSchedule = UploadSchedule(flushingMode: configuration.flushingMode)
    }

    // MARK: Loop

    /// Runs on the calling thread (the client's own engine thread) until ``ControlMessage/stop``
    /// has been handled and the final upload attempt is over: ``begin()``, then ``turn()`` after
    /// turn, waiting between them as each turn asks.
    func run() {
        begin()
        while true {
            switch turn() {
            case .again: continue
            case .linger: channels.linger(nanoseconds: Self.lingerNanoseconds)
            case .sleep(let deadline): channels.sleep(until: deadline, clock: clock)
            case .finished: return
            }
        }
    }

    /// The work of the first turn's start: the state is written once, the upload schedule starts
    /// and the initial check is requested. Called once, on the thread that then runs the turns.
    func begin() {
        persister.markDirty()
        uploadSchedule.start(at: clock.now())
        requestCheck(.initial)
    }

    /// One turn of the loop: drains the ring (a batch), handles the control messages, evaluates
    /// the timers, starts uploads and writes the state; returns what the thread that runs the
    /// engine does next (see ``EngineTurn``). After ``EngineTurn/finished`` the inbox is closed
    /// and no further turn may run.
    ///
    /// Its own thread (``run()``) waits between turns in ``EngineChannels/sleep(until:clock:)`` or
    /// ``EngineChannels/linger(nanoseconds:)``; a ``SegmentsEngineGroup`` thread publishes the same
    /// states and runs other clients' turns meanwhile.
    func turn() -> EngineTurn {
        let drained = drainRing()
        configuration.turnDrainedForTesting?()
        // The group commit: what this drain queued reaches the journal in one write, before any
        // of it can be uploaded.
        journal?.commit(at: clock.now())
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
        startCheck(checks.tick(at: now))
        if let due = stoppedUploadsRetryAt, now >= due, !stopping { retryStoppedUploads(at: now) }
        if uploadSchedule.mayStart(
            at: now, queue: uploads, drainedThrough: channels.ring.nextDequeuePosition, stopping: stopping) {
            startUpload()
        }
        persister.tick(at: now)
        if let journal, drained == 0, journal.acknowledgementDue {
            // No events came this turn to carry the mark: written alone, so that a process that
            // dies while idle does not send answered uploads again at its next start.
            journal.commit(at: now)
        }
        journal?.syncIfDue(at: now)
        // The state file first: a customer change the flush follows is then on disk when it
        // returns, as the events are (the journal holds events, the state file the customer).
        persistIfNeeded()
        answerJournalWaiters(at: now)
        let finished = stopping && !uploads.isInFlight
            && (uploads.isEmpty || uploadSchedule.finalAttemptFailed || uploads.pausedBy != nil) && channels.ring.isEmpty
        if finished {
            finishStop()
        }
        // A message stops counting as outstanding only now, after the work it caused (a next
        // upload, a check, deliveries) has been started and counted: otherwise an observer
        // could see "nothing outstanding" between the two and call the engine idle too early.
        for _ in 0..<handledMessages { channels.endWork() }
        // An event taken from the ring in this turn has had its upload started by now (and an
        // identity change its check): a barrier is answered once its items are behind the drain.
        // At the end, the ring no longer counts.
        let drainedThrough = channels.ring.nextDequeuePosition
        barriers.removeAll { barrier in
            guard finished || barrier.through &- drainedThrough <= 0 else { return false }
            channels.endWork()
            barrier.semaphore.signal()
            return true
        }
        if finished {
            channels.closeInbox()
            return .finished
        }
        if drained == Self.drainBatch { return .again }  // more is waiting
        let deadline = nextDeadline()
        if emptyLooks < Self.lingerLooks && !stopping && !isDue(deadline) {
            return .linger
        }
        return .sleep(until: deadline)
    }

    /// `true` if `deadline` has passed on the engine's clock (the next turn has timed work to do).
    private func isDue(_ deadline: SegmentsInstant?) -> Bool {
        deadline.map { $0 <= clock.now() } ?? false
    }

    private func nextDeadline() -> SegmentsInstant? {
        var deadline = checks.deadline
        func consider(_ candidate: SegmentsInstant?) {
            guard let candidate else { return }
            deadline = deadline.map { min($0, candidate) } ?? candidate
        }
        // Stopped uploads wait for nothing: a retry time set before they stopped has passed for good.
        consider(uploadSchedule.deadline(queueWaits: !uploads.isEmpty && !uploads.isInFlight && uploads.pausedBy == nil))
        if !stopping { consider(stoppedUploadsRetryAt) }
        consider(persister.answeredUploadsRewriteAt)
        consider(journal?.syncDue)
        return deadline
    }

    // MARK: Ingestion

    /// Moves what the ring holds (up to ``drainBatch`` items) into engine state; returns how many.
    @discardableResult
    private func drainRing() -> Int {
        // One exclusive access to the queue for the whole batch rather than one per event.
        drain(into: &uploads)
    }

    private func drain(into uploads: inout UploadQueue) -> Int {
        var handled = 0
        // Events the app did not stamp get the wall clock read once per batch (see `trackEvent`).
        // The read comes after a look at how many slots are claimed, and serves only the events
        // of those slots: each of their calls claimed its slot before the read, so no stamp comes
        // before its call. An event claimed later gets a read of its own, again for every slot
        // claimed by then.
        var stamp = 0.0
        var stampCovers = Int.min
        var customerIds = stampingIds
        let ring = channels.ring
        while handled < Self.drainBatch {
            let position = ring.nextDequeuePosition
            guard let item = ring.dequeue() else { break }
            handled += 1
            // `consume` moves the payload into engine state. Bound as copies, an event's type and
            // properties would be retained and released once more here, on the engine's core: an
            // app that passes the same dictionary to every call would then have its reference count
            // cross between its core and the engine's twice per event.
            switch consume item {
            case .event(let eventType, let properties, var timestamp):
                if timestamp.isNaN {
                    if position >= stampCovers {
                        stampCovers = ring.claimedPositions
                        stamp = clock.wallClockSeconds()
                    }
                    timestamp = stamp
                }
                enqueue(.event(TrackedEvent(
                    customerIds: customerIds, eventType: eventType, timestamp: timestamp, properties: properties)),
                    into: &uploads)
            case .identify(let snapshot, let properties, let namedHardId):
                adoptForStamping(snapshot)
                customerIds = stampingIds
                // The update goes out with the ids the call was made under, even when a newer
                // identity already took over stamping: it says who had these properties then.
                enqueue(.customer(CustomerUpdate(customerIds: snapshot.customerIds, properties: properties)), into: &uploads)
                persister.markDirty()
                if namedHardId { requestCheck(.identify) }
            case .anonymize(let snapshot):
                adoptForStamping(snapshot)
                customerIds = stampingIds
                checks.customerSwitched(to: snapshot)
                pullCache.clear()
                persister.markDirty()
                // The listeners now belong to a new customer: let them learn its segments.
                requestCheck(.customerSwitch)
            }
        }
        // Once per batch: producers parked on the full ring whose slots this batch freed.
        ring.wakeParkedProducers()
        return handled
    }

    /// Queues `item` for upload and stages it for the journal's next commit.
    private func enqueue(_ item: UploadItem, into uploads: inout UploadQueue) {
        journal?.queue(item)
        uploads.append(item)
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
        case .barrier(let semaphore, let through):
            // Signalled at the end of this turn, after timers have been evaluated, or of a later
            // one: once the items claimed before it have been drained.
            barriers.append((semaphore, through))
            return false
        case .getSegments(let category, let force, let completion):
            handlePull(category: category, force: force, completion: completion)
        case .flush(let through):
            uploadSchedule.requestFlush(through: through)
        case .journalFlush(let through, let completion):
            journalWaiters.append((through, completion))
        case .stop:
            beginStop()
        case .fetchCompleted(let outcome):
            handlePostedFetchCompleted(outcome)
        case .uploadCompleted(let outcome):
            handleUploadCompleted(outcome)
        case .runJob(let job, let executor):
            fetchStepsThisPass = true
            executor.runStep(job)
        }
        return true
    }

    /// A finished fetch that came through the inbox: one of a transport that may block, or one
    /// whose last step did not run in this owner's turn.
    // Out of line, like `launchFetch` and `EngineTaskExecutor.runStep`: `segments-bench`'s
    // instruction counts of a check collect inside these functions. A result applied in place
    // (inside `runStep`) must not enter a counted function a second time, which would turn the
    // collection off: so this one only forwards.
    @inline(never)
    private func handlePostedFetchCompleted(_ outcome: FetchOutcome) {
        handleFetchCompleted(outcome)
    }

    /// Routes a finished fetch to the check or the pull it belongs to.
    private func handleFetchCompleted(_ outcome: FetchOutcome) {
        switch outcome.purpose {
        case .check: handleCheckCompleted(outcome)
        case .pull: handlePullCompleted(outcome)
        }
        resumeFetchesAwaitingLink()
    }

    // MARK: Listener checks and fetches

    private func requestCheck(_ trigger: CheckCycle.Trigger) {
        startCheck(checks.request(trigger))
    }

    /// Launches the fetch of a check that ``CheckCycle`` started, if it started one.
    private func startCheck(_ snapshot: IdentitySnapshot?) {
        guard let snapshot else { return }
        launchFetch(.check, for: snapshot)
    }

    // Out of line (once per check), like `performFetch`, so that a profile names it.
    @inline(never)
    private func handleCheckCompleted(_ outcome: FetchOutcome) {
        recordLink(outcome)
        resumeUploadsIfTheServerAnswered(outcome)
        let completion = checks.checkCompleted(outcome)
        if completion.applied { persister.markDirty() }
        startCheck(completion.next)
    }

    /// Starts a fetch task for `identity`, linking first if ``LinkTracker`` says so; deferred while
    /// a linking fetch is in flight (see ``resumeFetchesAwaitingLink()``).
    @inline(never)
    private func launchFetch(_ purpose: FetchPurpose, for identity: IdentitySnapshot) {
        guard case .fetch(let link) = links.prepareFetch(purpose, for: identity) else {
            logger.trace("Segments: Fetch waits for the link-ids request in flight to end")
            return
        }
        guard fetchExecutor != nil else {
            launchFetchOffThePool(purpose, for: identity, link: link)
            return
        }
        let transport = configuration.transport
        let context = configuration.requestContext
        let channels = channels
        let counters = counters
        let turn = fetchExecutor.map { InTurnOwner(owner: self, executor: $0) }
        if fetchExecutor != nil { fetchStepsThisPass = true }
        fetchSequence &+= 1
        let sequence = fetchSequence
        channels.beginWork()
        Task(executorPreference: fetchExecutor) { @Sendable in
            let outcome = await performFetch(
                purpose, identity: identity, link: link, transport: transport,
                context: context, counters: counters, sequence: sequence)
            // A step on the engine thread hands the result over in place: through the inbox it
            // waited for this task's end and another pass over the inbox, on the way from the
            // data's arrival to the first callback.
            if let turn, turn.executor.isInTurn {
                turn.owner.handleFetchCompleted(outcome)
            } else {
                channels.post(.fetchCompleted(outcome))
            }
            channels.endWork()
        }
    }

    /// Starts the fetch task of a transport that may block (``SegmentsTransport/neverBlocks`` is
    /// `false`) on a serial queue of its own, off Swift's cooperative pool: fetches that blocked a
    /// pool thread each, one per client, would leave the app's own tasks no thread to run on.
    @inline(never)
    private func launchFetchOffThePool(_ purpose: FetchPurpose, for identity: IdentitySnapshot, link: [String: String]?) {
        let transport = configuration.transport
        let context = configuration.requestContext
        let channels = channels
        let counters = counters
        fetchSequence &+= 1
        let sequence = fetchSequence
        channels.beginWork()
        Task(executorPreference: SerialQueueTaskExecutor(label: "Segments.fetch")) { @Sendable in
            let outcome = await performFetch(
                purpose, identity: identity, link: link, transport: transport,
                context: context, counters: counters, sequence: sequence)
            channels.post(.fetchCompleted(outcome))
            channels.endWork()
        }
    }

    /// Records what the server links the cookie to after a fetch that sent link-ids (persisted).
    private func recordLink(_ outcome: FetchOutcome) {
        if links.record(outcome) { persister.markDirty() }
    }

    /// Starts the fetches that waited for a linking fetch to end, for the customer current now.
    private func resumeFetchesAwaitingLink() {
        let deferred = links.takeDeferred()
        // Called after every fetch: the identity is loaded (a retain) only when a fetch waited.
        guard deferred.check || deferred.pull else { return }
        let current = identity.load()
        // A deferred fetch is dropped once stop() began (it raised the generation with `isStopped`).
        let stopBegan = stopping || current.isStopped
        if deferred.check {
            if stopBegan { startCheck(checks.checkNotMade()) } else { launchFetch(.check, for: current) }
        }
        if deferred.pull {
            if stopBegan { pulls.fetchAbandoned() } else { launchFetch(.pull, for: current) }
        }
    }

    // MARK: Pull (getSegments)

    private func handlePull(category: SegmentCategory, force: Bool, completion: @escaping PullCompletion) {
        let current = identity.load()
        // `stop()` raises the generation before the engine takes its stop: from then on nothing
        // is fetched, and a pull fails as stopped, not as a customer change.
        guard !stopping, !current.isStopped else {
            complete(completion, with: .failure(.stopped))
            return
        }
        if !force, let cached = pullCache.lookup(category, generation: current.generation, now: clock.continuousNow()) {
            counters.pullCacheHits.wrappingIncrement(ordering: .relaxed)
            complete(completion, with: .success(cached))
            return
        }
        guard pulls.enqueue(category, completion) else {
            logger.trace("Segments: Manual fetch is already in progress, waiting for result")
            return
        }
        startPullFetch(for: current)
    }

    private func startPullFetch(for snapshot: IdentitySnapshot) {
        counters.pullFetches.wrappingIncrement(ordering: .relaxed)
        launchFetch(.pull, for: snapshot)
    }

    private func handlePullCompleted(_ outcome: FetchOutcome) {
        recordLink(outcome)
        resumeUploadsIfTheServerAnswered(outcome)
        let current = identity.load()
        guard !stopping, !current.isStopped else {
            pulls.fetchAbandoned()
            completePullWaiters(with: .failure(.stopped))
            return
        }
        switch pulls.fetchEnded(isCurrent: outcome.identity.generation == current.generation) {
        case .refetch:
            logger.debug("Segments: Repeating manual fetch because customer has changed")
            startPullFetch(for: current)
        case .gaveUp(let attempts):
            logger.warning("Segments: Manual fetch gave up after \(attempts) attempts: customer kept changing")
            completePullWaiters(with: .failure(.customerChanged))
        case .deliver:
            switch outcome.result {
            case .success(let response):
                pullCache.store(response, generation: current.generation, sequence: outcome.sequence, at: clock.continuousNow())
                completePullWaiters(with: .success(response))
            case .failure(.link(let error)):
                logger.warning("\(SegmentsLogMessage.mergeFailed(customerIds: outcome.identity.customerIds, error: error))")
                completePullWaiters(with: .failure(error))
            case .failure(.fetch(let error)):
                logger.error("\(SegmentsLogMessage.fetchFailed(error))")
                completePullWaiters(with: .failure(error))
            }
        }
    }

    private func completePullWaiters(with result: Result<SegmentsResponse, SegmentsError>) {
        for waiter in pulls.takeWaiters() {
            complete(waiter.completion, with: result.map { $0[waiter.category] })
        }
    }

    private func complete(_ completion: @escaping PullCompletion, with result: Result<[Segment], SegmentsError>) {
        channels.runInBackground { completion(result.map { $0.spelledOut() }) }
    }

    // MARK: Uploads

    private func startUpload() {
        guard let batches = uploads.next(maxBatchSize: configuration.maxUploadBatchSize, maxUploads: Self.uploadsPerTask)
        else { return }
        let transport = configuration.transport
        let context = configuration.requestContext
        let channels = channels
        uploadInFlightIsFinalAttempt = stopping
        channels.beginWork()
        Task(executorPreference: uploadExecutor) {
            var outcome = UploadOutcome(accepted: 0)
            sending: for upload in batches {
                do throws(SegmentsError) {
                    switch upload {
                    case .customer(let update): try await transport.identifyCustomer(update, context: context)
                    case .events(let events): try await transport.trackEvents(events, context: context)
                    }
                } catch {
                    outcome.error = error
                    break sending
                }
                outcome.accepted += 1
            }
            channels.post(.uploadCompleted(outcome))
            channels.endWork()
        }
    }

    /// A fetch the server answered with success, after a configuration error stopped uploads
    /// (a 404 while it was deployed, a proxy's 403): the same server now takes this configuration,
    /// so uploads resume. Should the error come back (an error of the upload endpoint alone), they
    /// stop again, and a fetch resumes them no more often than ``stoppedUploadsRetryBase()``, which
    /// grows with each refusal: a failing upload that often, not after every check.
    private func resumeUploadsIfTheServerAnswered(_ outcome: FetchOutcome) {
        guard uploads.pausedBy != nil, case .success = outcome.result else { return }
        let now = clock.now()
        // As often as the retries, whose wait grows while the same error comes back: a key the
        // upload endpoint alone refuses must not send a refused upload after every check.
        if let last = lastUploadResume, now < last + stoppedUploadsRetryBase() { return }
        guard let error = uploads.resume() else { return }
        lastUploadResume = now
        stoppedUploadsRetryAt = nil
        // Counted as a retry: refused alike, the wait grows, without another error line.
        retryingStoppedBy = (error, byFetch: true)
        logger.notice(
            "Segments: Uploads resume: a fetch from the same server succeeded since uploads stopped (\(error)); \(uploads.count) kept uploads go out")
    }

    /// Uploads stopped by a configuration error have waited ``stoppedUploadsRetryDelay()``: the
    /// next upload is sent again. Accepted, uploads resume; refused again, they stop for twice as
    /// long, with an error line only if the error changed (``handleUploadCompleted(_:)``).
    private func retryStoppedUploads(at now: SegmentsInstant) {
        stoppedUploadsRetryAt = nil
        guard let error = uploads.resume() else { return }
        lastUploadResume = now
        retryingStoppedBy = (error, byFetch: false)
        logger.debug("Segments: Retrying uploads stopped by \(error): \(uploads.count) kept uploads")
    }

    /// How long uploads a configuration error stopped wait before the next retry, before jitter:
    /// the upload policy's longest backoff, doubled by each retry refused again, up to an hour.
    private func stoppedUploadsRetryBase() -> Duration {
        let policy = configuration.uploadRetry
        let growing = RetryPolicy(initial: policy.maximum, maximum: max(policy.maximum, Self.longestStoppedUploadsRetry))
        return growing.delay(afterFailures: stoppedUploadsRetries + 1)
    }

    /// ``stoppedUploadsRetryBase()`` spread by the policy's jitter above it (never earlier), so
    /// that the clients of one broken configuration do not retry together.
    private func stoppedUploadsRetryDelay() -> Duration {
        configuration.uploadRetry.delay(retryAfter: stoppedUploadsRetryBase(), random: &random)
    }

    private func handleUploadCompleted(_ outcome: UploadOutcome) {
        let resolution = uploads.resolve(outcome, policy: configuration.uploadRetry, random: &random)
        // A retry of stopped uploads is over once the server accepts something, or stops them
        // again; a transient failure or a refused command in between leaves it under way.
        let retriedAfter = retryingStoppedBy
        let accepted = resolution.removed > resolution.setAside.count
        if let retriedAfter, resolution.paused || accepted {
            retryingStoppedBy = nil
            if accepted, !resolution.paused {
                stoppedUploadsRetries = 0
                if !retriedAfter.byFetch {
                    logger.notice(
                        "Segments: Uploads resume: the server accepted a retried upload since uploads stopped (\(retriedAfter.error)); \(uploads.count) kept uploads go out")
                }
            }
        }
        if resolution.removed > 0 {
            journal?.acknowledge(resolution.removed)
            uploadSchedule.uploadsAnswered()
            persister.uploadsAnswered(queueIsEmpty: uploads.isEmpty)
        }
        if !resolution.setAside.isEmpty { persister.setAside(resolution.setAside) }
        if resolution.eventsDelivered > 0 {
            counters.eventsUploaded.wrappingIncrement(by: resolution.eventsDelivered, ordering: .relaxed)
            requestCheck(.trackedEvent)
        }
        guard let error = resolution.failure else { return }
        counters.uploadFailures.wrappingIncrement(ordering: .relaxed)
        if resolution.paused {
            // A retry refused again, alike or with another configuration error (a proxy's 403
            // after a 401), waits longer; only a new error is worth another error line.
            stoppedUploadsRetries = retriedAfter != nil ? stoppedUploadsRetries + 1 : 0
            let delay = stoppedUploadsRetryDelay()
            stoppedUploadsRetryAt = clock.now() + delay
            if retriedAfter?.error == error {
                logger.debug("Segments: Retried uploads refused again (\(error)); the next retry in \(delay)")
            } else {
                logger.error(
                    "Segments: Uploads stopped: \(error). \(uploads.count) unsent uploads are kept\(persister.keepsState ? " and saved at stop" : ""); uploads resume once a fetch from the same server succeeds or a retry (in \(delay), then at doubling intervals up to an hour) is accepted, or when the client is started with a configuration the server accepts")
            }
            persister.markDirty()
            return
        }
        guard let delay = resolution.retryDelay else {
            // A refused upload being split, or its refused command set aside: the rest goes at once.
            logger.debug("Segments: Upload refused (\(error)); sending it in smaller parts to find the refused commands")
            return
        }
        if stopping, uploadInFlightIsFinalAttempt {
            uploadSchedule.markFinalAttemptFailed()
            logger.warning("Segments: Final upload before stop failed: \(error)")
            return
        }
        if stopping {
            // Out before stop came: the final attempt, which ignores the retry time, follows now.
            logger.warning("Segments: Upload of \(uploadDescription) failed: \(error); making the final attempt before stop")
            return
        }
        uploadSchedule.retry(at: clock.now() + delay)
        logger.warning("Segments: Upload of \(uploadDescription) failed: \(error); kept, retrying in \(delay)")
        // While uploads fail (offline, an outage), what waits is written down at each failure,
        // so a process that dies before stop() loses at most what was tracked since the last
        // one. Written once per retry, not per event: the backoff bounds how often.
        persister.markDirty()
    }

    /// What the next upload carries, for a log line.
    private var uploadDescription: String {
        uploads.describeNext(maxBatchSize: configuration.maxUploadBatchSize)
    }

    // MARK: Stop and persistence

    /// Handles ``ControlMessage/stop``: no check or pull starts after this, and the waiting pulls
    /// fail with ``SegmentsError/stopped``. What was tracked before `stop()` is written to the
    /// state file first: `stop(timeout:)` may return before the final upload is over, and an app
    /// that exits then keeps it (the upload in flight included, sent again at the next start). The
    /// loop then makes a final upload attempt and, once it is over and the ring is empty, ends
    /// with ``finishStop()``.
    private func beginStop() {
        stopping = true
        checks.stop()
        // Everything claimed before the stop message was posted is in the ring: a pass over at
        // most its capacity takes it, whatever producers add meanwhile.
        var taken = 0
        while taken < channels.ring.capacity {
            let drained = drainRing()
            taken += drained
            if drained < Self.drainBatch { break }
        }
        journal?.commit(at: clock.now())
        // Only with something to keep: a stop with nothing unsent writes the state once, at its end.
        if !uploads.isEmpty { persister.markDirty() }
        savedAsStopBegan = persistIfNeeded()
        completePullWaiters(with: .failure(.stopped))
        uploadSchedule.stop()
    }

    private func finishStop() {
        drainRing()
        let now = clock.now()
        journal?.commit(at: now)
        journal?.finish(at: now)
        persister.markDirty()
        let saved = persistIfNeeded()
        answerJournalWaiters(at: now)
        for waiter in journalWaiters { waiter.completion(.failure(.stopped)) }
        journalWaiters.removeAll()
        if !uploads.isEmpty {
            if saved {
                logger.notice("Segments: \(uploads.count) unsent uploads kept for the next start")
            } else if savedAsStopBegan {
                logger.error(
                    "Segments: The state file could not be written at the end of stop (see the line before): the next start sends the uploads that were unsent when stop began, some of them again")
            } else if persister.keepsState {
                logger.error(
                    "Segments: \(uploads.count) unsent uploads are lost at stop: the state file could not be written (see the line before)")
            } else {
                logger.error(
                    "Segments: \(uploads.count) unsent uploads are lost at stop: configure stateDirectory to keep them")
            }
        }
        stateLock?.release()
    }

    /// Writes the state if it changed. Unsent uploads are included, so events restored at start, or
    /// waiting while uploads fail, are not lost if the process dies before they go out.
    /// Returns whether it wrote the file.
    @discardableResult
    private func persistIfNeeded() -> Bool {
        guard persister.needsWrite else { return false }
        let current = identity.load()
        return persister.write(
            customerIds: current.customerIds, linkedIds: links.linkedIds(forCookie: current.cookie),
            lastKnown: checks.lastKnown, pendingUploads: pendingUploadsForStateFile)
    }

    /// The uploads the state file keeps: all of them without a journal; with one, those it may
    /// not hold (``EventJournal/itemsForTheStateFile``).
    private var pendingUploadsForStateFile: [UploadItem] {
        guard let journal else { return uploads.items }
        return uploads.lastItems(journal.itemsForTheStateFile)
    }

    // MARK: Journal

    /// Answers the ``SegmentsClient/flushJournal()`` calls whose ring position has been drained
    /// (and so committed): with success once the journal's writes are synced, else with why not.
    private func answerJournalWaiters(at now: SegmentsInstant) {
        guard !journalWaiters.isEmpty else { return }
        let drainedThrough = channels.ring.nextDequeuePosition
        guard journalWaiters.contains(where: { $0.through <= drainedThrough }) else { return }
        let result = journal?.syncForFlush(at: now)
            ?? .failure(.journalUnavailable(journalSetAside.map { "the event journal is set aside for this run: \($0)" } ?? "no event journal is configured"))
        journalWaiters.removeAll { waiter in
            guard waiter.through <= drainedThrough else { return false }
            waiter.completion(result)
            return true
        }
    }
}

/// The owner, for the last step of a fetch that runs in the owner's turn (see
/// ``EngineTaskExecutor/isInTurn``) to hand its result over in place.
///
/// `@unchecked Sendable`: the task that carries it to the engine's executor may run elsewhere (a
/// step after the engine thread ended), but ``owner`` is only read after `executor.isInTurn` said
/// that the caller is a step the owner's own turn is running on this thread. The owner is then
/// alive (its turn is on the stack) and this thread is the one that owns its state.
private struct InTurnOwner: @unchecked Sendable {
    unowned(unsafe) let owner: EngineOwner
    let executor: EngineTaskExecutor
}

/// Links (if asked) and fetches for `identity`; never throws, the failure is in the outcome.
@inline(never)
private func performFetch(
    _ purpose: FetchPurpose, identity: IdentitySnapshot, link: [String: String]?,
    transport: any SegmentsTransport, context: SegmentsRequestContext, counters: EngineCounters, sequence: UInt64
) async -> FetchOutcome {
    if let link {
        counters.linkCalls.wrappingIncrement(ordering: .relaxed)
        do {
            try await transport.linkCustomerIds(cookie: identity.cookie, externalIds: link, context: context)
        } catch {
            return FetchOutcome(
                purpose: purpose, identity: identity, linked: nil, linkAttempted: true, result: .failure(.link(error)),
                sequence: sequence)
        }
    }
    do {
        let response = try await transport.fetchSegments(cookie: identity.cookie, context: context)
        return FetchOutcome(
            purpose: purpose, identity: identity, linked: link, linkAttempted: link != nil, result: .success(response),
            sequence: sequence)
    } catch {
        return FetchOutcome(
            purpose: purpose, identity: identity, linked: link, linkAttempted: link != nil, result: .failure(.fetch(error)),
            sequence: sequence)
    }
}
