import Dispatch
import Foundation
import Logging
import Synchronization

/// The real-time segments engine: tracks events and identity, keeps the customer's segments fresh,
/// and notifies the registered callbacks of exactly the categories that changed.
///
/// ```swift
/// let client = SegmentsClient(configuration: .init(projectToken: "token", transport: transport))
/// client.segmentation.addCallback(callbackData: .init(category: .discovery, isIncludeFirstLoad: true) {
///     print($0)
/// })
/// client.start()
/// try client.identifyCustomer(customerIds: ["registered": "jane@example.com"])
/// try client.trackEvent(eventType: "view_item", properties: ["sku": "A-1"])
/// let content = try await client.getSegments(category: .content)
/// ```
///
/// Threading: every method may be called from any thread. `trackEvent`, `identifyCustomer` and
/// `anonymize` are lock-free and return without waiting for the engine, unless its ingestion ring is
/// full (``SegmentsConfiguration/ingestCapacity``): then they wait for room (on the engine thread,
/// in app code it runs, they hand the wait to a background thread instead); their effects are
/// applied in call order. Callbacks and `getSegments` completions run on background threads, never on the
/// caller's thread and never while an engine lock is held. One engine thread owns all state; fetches
/// and uploads run as tasks. Call ``stop(timeout:)`` to end the engine thread. With
/// ``SegmentsConfiguration/engineGroup`` set, that thread is one of the group's, shared with
/// other clients (see ``SegmentsEngineGroup``). With ``SegmentsConfiguration/journal`` set, the
/// engine thread (never `trackEvent`) writes tracked events to a write-ahead journal before
/// uploading them; ``flushJournal()`` suspends until what was tracked before it is durable there.
///
/// Errors: invalid arguments throw ``SegmentsError``. Before ``start()`` or after ``stop(timeout:)``,
/// `trackEvent`, `identifyCustomer` and the `async` `getSegments` throw it; `anonymize` and `flush`
/// do nothing but log a `Segments:` error, and the completion form of `getSegments` is called with
/// `[]` and a `Segments:` warning. Network failures are logged as `Segments:` lines and
/// `getSegments` reports them to its caller. Uploads that fail are retried; those the server refuses
/// for good are set aside in the state directory's dead-letter file (without a state directory,
/// discarded), each time with a `Segments:` error line.
public final class SegmentsClient: Sendable {
    private enum Lifecycle: Int, AtomicRepresentable {
        case created, started, stopped
    }

    /// The configuration the client was created with, with values out of range brought into
    /// range, and without ``SegmentsConfiguration/stateDirectory`` and
    /// ``SegmentsConfiguration/journal`` when the directory was left to another client or project
    /// (see ``init(configuration:)``).
    public let configuration: SegmentsConfiguration
    /// Where callbacks are registered and removed.
    public let segmentation: SegmentationManager
    /// Reporting segments (SPEC §10): subscriptions, persistence; visitors via
    /// ``reportingVisitor(visitorId:)``.
    public let reporting: ReportingSegmentsManager

    // Internal rather than private: tests post to it directly, as a call racing `stop()` would.
    let channels: EngineChannels
    let identity: IdentityCell
    private let registry: CallbackRegistry
    private let pullCache: PullCache
    /// Qualified segments (SPEC §9): the cache and the requests in flight, shared by every user
    /// context of this client.
    let qualifiedFetcher: QualifiedSegmentsFetcher
    private let counters: EngineCounters
    private let lifecycle = AtomicCell<Lifecycle>(.created)
    private let initial: Locked<EngineOwner.Initial?>
    /// This client's hold on its state directory (also in `initial`, for the engine to release).
    private let stateLock: StateDirectoryLock?
    /// Entered while an engine runs (or ``start()`` is about to run one): every ``stop(timeout:)``
    /// waits on it, however many callers there are.
    private let engineRunning = DispatchGroup()
    /// The ``SegmentChanges`` not ended yet; stopping the client ends them.
    let openChanges = OpenSegmentChanges()

    /// Creates a client and loads its persisted state (cookie, customer ids, last known segments,
    /// unsent events) from ``SegmentsConfiguration/stateDirectory``. A corrupt state file is logged
    /// and ignored. A state directory whose state file another project's client wrote is left to
    /// that project, and one that another client holds (not stopped yet, or its `stop()` timed out)
    /// is left to that client: this client then keeps no state on disk (no state file, journal or
    /// reporting segments), with a `Segments:` error line. A client holds its directory until its
    /// engine has ended, or, if never started, until it is stopped or released. Nothing runs until
    /// ``start()``.
    ///
    /// Configuration values out of range are brought into range, each with a `Segments:` warning:
    /// negative durations become zero, `ingestCapacity` is kept within 1...1,048,576,
    /// `deliverySpinWindow` within 0...10 ms, `maxUploadBatchSize` is at least 1,
    /// `maxPullRefetches` at least 0, retry delays and a periodic flush interval are at least
    /// 10 ms, `uploadRetry.maximum` at least `uploadRetry.initial`, `uploadRetry.jitter` within
    /// 0...1 (0 if not a number), a journal's `maxBytes` at least 4 KiB and its sync interval at
    /// least 1 ms; a journal without a `stateDirectory` is ignored.
    ///
    /// Threading: blocks the caller while it reads the state file and, with a journal, replays
    /// it (up to ``JournalConfiguration/maxBytes``): create the client off the main thread if
    /// either may be large.
    public init(configuration: SegmentsConfiguration) {
        var configuration = configuration.withinLimits()
        var stateLock: StateDirectoryLock?
        if let directory = configuration.stateDirectory {
            switch StateDirectoryLock.acquire(in: directory, projectToken: configuration.projectToken) {
            case .success(let lock):
                stateLock = lock
                for file in StateStore(directory: directory).removeAbandonedTemporaryFiles() {
                    configuration.logger.debug("Segments: Removed the temporary file of a save a crash interrupted: \(file.path)")
                }
            case .failure(.held):
                configuration.logger.error(
                    "Segments: State directory \(directory.path) is in use by another client (one not stopped, or whose stop() timed out); this client keeps its state in memory (no state file, event journal or reporting segments)")
                configuration.keepStateInMemory()
            case .failure(.otherProject(let owner)):
                configuration.logger.error("\(Self.otherProjectLine(directory: directory, owner: owner))")
                configuration.keepStateInMemory()
            case .failure(.unavailable(let reason)):
                configuration.logger.warning(
                    "Segments: Could not lock state directory \(directory.path) (\(reason)); using it unlocked: another client on it could replace what this one saves")
            }
        }
        let restored = Self.restore(configuration)
        if restored == nil {
            configuration.keepStateInMemory()
            stateLock?.release()
            stateLock = nil
        }
        stateLock?.claim(for: configuration.projectToken)
        let start = restored ?? Self.fresh
        self.configuration = configuration
        let logger = configuration.logger
        let channels = EngineChannels(
            ringCapacity: configuration.ingestCapacity, nudgeSawEngineRunning: nil,
            groupMember: configuration.engineGroup?.makeMember(for: configuration))
        self.channels = channels
        let registry = CallbackRegistry()
        self.registry = registry
        self.pullCache = PullCache(ttl: configuration.cacheTTL)
        self.counters = EngineCounters(checkTimeline: configuration.checkTimeline)
        self.qualifiedFetcher = QualifiedSegmentsFetcher(configuration: configuration)

        var initial = start.initial
        initial.stateLock = stateLock
        self.stateLock = stateLock
        if let directory = configuration.stateDirectory {
            let journalDirectory = JournalRecovery.directory(in: directory)
            if configuration.journal != nil {
                let recovery = JournalRecovery.read(directory: journalDirectory, logger: logger)
                if let reason = recovery.setAsideReason {
                    let remedy = recovery.unreadableFiles.isEmpty
                        ? "run a version that reads them, or move them out of the directory to give up their events"
                        : "fix the file's permissions, or move it out of the directory to give up its events"
                    logger.error(
                        "Segments: The event journal is set aside for this run: \(reason). No journal file is replayed, written or deleted, so that what the server answers now cannot hide the unread events; events are kept in memory and in the state file at stop, and every journal file is replayed at a start that can read them (\(remedy))")
                    initial.journalSetAside = reason
                } else {
                    initial.journal = recovery
                }
            } else {
                JournalRecovery.warnOfSegmentFilesLeft(in: journalDirectory, logger: logger)
            }
        }
        self.identity = IdentityCell(
            IdentitySnapshot(customerIds: start.customerIds, generation: 1),
            halfPublishedForTesting: configuration.identityHalfPublishedForTesting)
        self.initial = Locked(initial)
        self.reporting = ReportingSegmentsManager(
            stateDirectory: configuration.stateDirectory, logger: logger,
            beginWork: { channels.beginWork() }, endWork: { channels.endWork() },
            beforeWrite: configuration.reportingWriteForTesting, duringRestore: configuration.reportingRestoreForTesting,
            changedForTesting: configuration.reportingChangedForTesting)

        let lifecycle = lifecycle
        self.segmentation = SegmentationManager(registry: registry, logger: logger) {
            // Reload trigger 1: a registration while the engine runs. Sequentially consistent
            // against `start()`'s exchange: either this sees `started`, or the engine, which
            // starts after it, sees the registration in its initial check (trigger 2).
            switch lifecycle.atomic.load(ordering: .sequentiallyConsistent) {
            case .started: channels.requestReload()
            case .stopped:
                // Never called, so not held: a callback that captures the client would keep it alive.
                registry.removeAll()
                logger.warning("Segments: Callback registered on a stopped client; it will never be called")
            default: break
            }
        }
    }

    /// A client dropped without ``stop(timeout:)`` still ends its engine thread (without waiting for it).
    deinit {
        openChanges.endAll()
        // The reporting writes still queued hold the directory too, so that its next client
        // cannot write the same visitor files meanwhile.
        let stateLock = stateLock
        stateLock?.share()
        reporting.detachStorageWithoutWaiting { stateLock?.release() }
        if lifecycle.atomic.exchange(.stopped, ordering: .acquiringAndReleasing) == .started {
            identity.update { IdentitySnapshot(customerIds: $0.customerIds, generation: $0.generation + 1, isStopped: true) }
            channels.post(.stop)
        }
    }

    /// The error line of a client whose state directory belongs to project `owner`.
    private static func otherProjectLine(directory: URL, owner: String) -> String {
        "Segments: State directory \(directory.path) belongs to another project (\(owner)); this client keeps no state on disk (no state file, event journal or reporting segments): give each project a stateDirectory of its own"
    }

    /// A client with no state to restore: a new cookie, nothing known, nothing to send.
    private static var fresh: (customerIds: [String: String], initial: EngineOwner.Initial) {
        (
            customerIds: [CustomerIdKey.cookie: UUID().uuidString],
            initial: EngineOwner.Initial(customerIds: [:], linkedIds: [:], lastKnown: nil, pendingUploads: [])
        )
    }

    /// The state in the configuration's state directory, or a fresh one; `nil` (logged) when the
    /// directory's state file belongs to another project or cannot be read.
    private static func restore(_ configuration: SegmentsConfiguration) -> (customerIds: [String: String], initial: EngineOwner.Initial)? {
        guard let directory = configuration.stateDirectory else { return fresh }
        let store = StateStore(directory: directory)
        switch store.load() {
        case .missing:
            return fresh
        case .corrupt(let reason):
            let kept: String
            do {
                kept = "kept as \(try store.setAside().lastPathComponent)"
            } catch {
                kept = "could not set it aside (\(error)), so the next save replaces it"
            }
            configuration.logger.warning("Segments: Ignoring corrupt state file \(store.fileURL.path): \(reason); \(kept)")
            return fresh
        case .unreadable(let reason):
            // Not corrupt: what it holds (the cookie, unsent events) is unknown, and a start that
            // can read it needs it as it is.
            configuration.logger.error(
                "Segments: The state file \(store.fileURL.path) cannot be read: \(reason); it is left as it is and this client keeps its state in memory (no state file, event journal or reporting segments): fix its permissions, or move it away to start afresh")
            return nil
        case .loaded(let state):
            if let owner = state.projectToken, owner != configuration.projectToken {
                configuration.logger.error("\(otherProjectLine(directory: directory, owner: owner))")
                return nil
            }
            let lastKnown = state.lastKnown.map { known in
                LastKnownState(customerIds: known.customerIds, response: SegmentsResponse(wireCategories: known.categories))
            }
            if !state.pendingUploads.isEmpty {
                configuration.logger.info("Segments: Restored \(state.pendingUploads.count) unsent uploads")
            }
            return (
                state.customerIds,
                EngineOwner.Initial(
                    customerIds: state.customerIds, linkedIds: state.linkedIds, lastKnown: lastKnown,
                    pendingUploads: state.pendingUploads)
            )
        }
    }

    // MARK: Lifecycle

    /// Starts the engine thread: restored uploads go out and, if callbacks are registered, a check is
    /// requested (reload trigger 2), and persisted reporting segments are restored. Calling it again
    /// does nothing; a call made while another is starting the client returns once it has.
    ///
    /// Threading: reads the reporting segments files of the state directory on the caller's
    /// thread, if they were not read yet; the engine's work runs on its own thread.
    public func start() {
        reporting.restoreIfNeeded()
        configuration.startCalledForTesting?()
        // Taken, and the client made started, under the lock: a start() that finds it taken has
        // waited for that (and returns with the client started, or stopped), so that what its
        // caller does next finds the client running. Nothing in it logs or calls out.
        enum Start { case begun(EngineOwner.Initial), alreadyTaken, stopped }
        let start: Start = initial.withLock { initial in
            guard var taken = initial.take() else { return .alreadyTaken }
            configuration.startTookInitialForTesting?()
            // Read before the client counts as started: until then nothing can change the
            // identity, so these are exactly the ids the first tracked events belong to.
            taken.customerIds = identity.load().customerIds
            // Entered before the client counts as started, so that a stop() that sees it started
            // finds the engine to wait for.
            engineRunning.enter()
            guard lifecycle.atomic.compareExchange(expected: .created, desired: .started, ordering: .sequentiallyConsistent).exchanged
            else {
                engineRunning.leave()
                return .stopped
            }
            return .begun(taken)
        }
        let initial: EngineOwner.Initial
        switch start {
        case .begun(let taken):
            initial = taken
        case .alreadyTaken:
            configuration.logger.debug("Segments: start() ignored: the client was already started or stopped")
            return
        case .stopped:
            configuration.logger.debug("Segments: start() ignored: the client was stopped")
            return
        }
        let owner = OwnerBox(
            configuration: configuration, channels: channels, identity: identity, registry: registry,
            pullCache: pullCache, counters: counters, initial: initial)
        let running = engineRunning
        let channels = channels
        let logger = configuration.logger
        if let member = channels.groupMember {
            // The group thread runs the engine's turns among its other clients', and on `finished`
            // does what this client's own thread does after `run()`.
            member.thread.join(EngineGroupThread.Join(
                member: member, channels: channels, logger: logger, makeOwner: { owner.makeOwner() },
                finished: {
                    channels.closeRing(logger: logger)
                    running.leave()
                }))
            return
        }
        let counters = counters
        EngineThread.start(
            scheduling: configuration.engineScheduling, logger: logger, consumer: channels.consumerThread
        ) {
            counters.engineThreadStarted()
            owner.makeOwner().run()
            // Items that calls racing stop() put in the ring after the engine's last look.
            channels.closeRing(logger: logger)
            counters.engineThreadEnding()
            running.leave()
        }
    }

    /// Stops the engine: cancels pending checks (no callback is invoked for data fetched before),
    /// fails waiting `getSegments` calls with ``SegmentsError/stopped``, makes one last attempt to
    /// upload buffered events, and persists what could not be sent and every reporting segments
    /// change made before the call (if a state directory is set), then gives the directory up to
    /// the next client (once the engine has ended). No segment callback is called after it
    /// (`getSegments` completions still answer, with ``SegmentsError/stopped``), and the client
    /// lets go of every registered callback (and of one added later), so a callback that captures
    /// the client does not keep it alive.
    ///
    /// Threading: blocks the caller. It first writes the reporting segments files that changed
    /// (not bounded by `timeout`), then waits until the engine thread has ended or `timeout`
    /// passed, then ends every ``SegmentChanges`` sequence; so does every later or concurrent call.
    /// It may be called from a callback. Called on the engine thread itself (from the log
    /// handler, the configured clock or a step of a ``SegmentsTransport/neverBlocks`` transport,
    /// or of another client of the same ``SegmentsEngineGroup`` thread), it cannot wait for that
    /// thread: it returns once the reporting files are written, with a `Segments:` warning if the
    /// client was started, and the engine stops after the code that called it returns. So does a
    /// call on another client's engine thread, which this engine may be waiting for; this engine
    /// then stops on its own. The same holds in code an upload
    /// runs (the transport's upload call, or the log handler it logs through): the engine ends
    /// only once that upload is over. The client cannot be restarted.
    ///
    /// Events whose `trackEvent` returned before `stop()` was called are uploaded, or written to
    /// the state file as the engine takes the stop, before its final upload: a `stop` that times
    /// out on that upload returns with them on disk (one that times out before the engine took
    /// the stop, on an engine busy for longer than `timeout`, leaves that write to the engine). Without a state directory, those still unsent when the
    /// engine ends are lost, with a `Segments:` error. One whose call was still running when the
    /// engine ended is dropped with a `Segments:` error.
    public func stop(timeout: Duration = .seconds(30)) {
        defer { openChanges.endAll() }
        // The last reporting writes; later changes stay in memory, since the directory may pass
        // to another client once this one has stopped.
        reporting.detachStorage()
        let previous = lifecycle.atomic.exchange(.stopped, ordering: .acquiringAndReleasing)
        switch previous {
        case .created:
            // No engine ever ran: answer what reaches the inbox from now on (`waitUntilIdle`'s
            // barrier among them) as an ended engine would, and leave the state directory to others.
            channels.closeInbox()
            stateLock?.release()
        case .started:
            identity.update { IdentitySnapshot(customerIds: $0.customerIds, generation: $0.generation + 1, isStopped: true) }
            configuration.stopGenerationRaisedForTesting?()
            channels.post(.stop)
        case .stopped:
            break  // another call stopped it: wait for the same engine
        }
        // No callback is called after stop (the raised generation stops deliveries in flight
        // before their next callback, and no check applies after it), so none is held: one that
        // captures the client would keep it alive. After the generation, so that a check applied
        // before it still reaches its callbacks.
        registry.removeAll()
        // Code the engine thread runs (a log handler, the clock, a never-blocking transport's
        // step) would wait for the thread it runs on: the engine stops once that code returns.
        if channels.consumerThread.isCurrent {
            // Once: a log handler that stops the client on every line would otherwise recurse.
            // (A client never started has no engine to stop: a client of this group thread.)
            if previous == .started {
                configuration.logger.warning(
                    "Segments: stop() was called on the engine thread; it returns at once, and the engine stops after the code that called it returns")
            }
            return
        }
        // Another engine thread: this engine's end may wait for that thread (a full ring of a
        // client it serves), which would then wait here for good.
        if EngineThreadFlag.isCurrent {
            if previous == .started {
                configuration.logger.warning(
                    "Segments: stop() was called on another client's engine thread; it returns at once, and the engine stops on its own")
            }
            return
        }
        // The same for code an upload runs (its transport call, a log handler it logs through):
        // the engine ends only once its upload is over.
        if channels.uploadThread.isCurrent {
            if previous == .started {
                configuration.logger.warning(
                    "Segments: stop() was called from an upload; it returns at once, and the engine stops once the upload returns")
            }
            return
        }
        if engineRunning.wait(timeout: .after(timeout)) == .timedOut {
            configuration.logger.warning("Segments: stop() timed out waiting for the final upload")
            return
        }
    }

    /// Drops this client's hold on its state directory, as the kernel does for a process that dies:
    /// tests start a second client on the directory to stand for the restart after a crash.
    func releaseStateDirectoryForTesting() {
        stateLock?.releaseNow()
    }

    /// Throws why a `trackEvent` call is refused: an invalid argument first, then a client that is
    /// not running.
    ///
    /// Out of line, so that `trackEvent` makes no call unless it throws: its error paths, inlined,
    /// made every call keep its arguments in saved registers and stack slots for them. It takes
    /// the call's arguments over and throws itself, so that nothing is left for `trackEvent` to do
    /// after it (releasing them, the throw's own runtime call) that would need registers saved on
    /// every call.
    @inline(never)
    private static func refuse(
        eventType: consuming String, properties: consuming [String: JSONValue], timestamp: Double?, lifecycle: Lifecycle
    ) throws(SegmentsError) -> Never {
        if eventType.isEmpty { throw .invalidArgument("eventType is empty") }
        if let timestamp, !timestamp.isFinite {
            throw .invalidArgument("timestamp \(timestamp) is not a finite number of seconds")
        }
        throw lifecycle == .created ? .notStarted : .stopped
    }

    @inline(__always)
    func requireStarted() throws(SegmentsError) {
        switch lifecycle.atomic.load(ordering: .relaxed) {
        case .started: return
        case .created: throw .notStarted
        case .stopped: throw .stopped
        }
    }

    // MARK: Tracking and identity

    /// Tracks an event for the current customer. Lock-free; the event is uploaded according to
    /// ``SegmentsConfiguration/flushingMode`` and a successful upload requests a check (trigger 4).
    /// If the ingestion ring is full the call waits for room: events are never dropped.
    ///
    /// The event type and properties are taken over (`consuming`): a dictionary built for the call
    /// moves into the ring without a retain here and a release in the caller.
    ///
    /// A property number that JSON cannot carry (NaN, an infinity, at any depth) is encoded as
    /// `null`: the HTTP transport and the state file log a `Segments:` error naming it (a transport
    /// of your own learns where through ``NonFiniteNumbers``; the in-memory transport receives the
    /// number as it is). It is found while encoding, not in this call, which would otherwise walk
    /// the properties on the app's thread.
    ///
    /// An event without a `timestamp` is stamped by the engine thread, with
    /// ``SegmentsClock/wallClockSeconds()`` read as it takes events from the ring (once for every
    /// event already claimed at the read), so the call itself reads no clock. The engine is woken
    /// by the first event after a pause and looks at the ring at least every millisecond while
    /// events flow, so the stamp is normally within a millisecond of the call, and never before
    /// it by the configured clock (unless that clock is set back); later while the engine thread
    /// waits for a core or producers outrun it (`segments-bench`'s `tracking-storm` reports this
    /// lag). Events stamped this way keep the order of the calls.
    ///
    /// - Parameters:
    ///   - eventType: the event's type, for example `"view_item"`; not empty.
    ///   - properties: the event's properties, sent as they are.
    ///   - timestamp: seconds since 1970; `nil` for when the engine takes the event (see above).
    /// - Throws: ``SegmentsError/invalidArgument(_:)`` for an empty event type or a timestamp that
    ///   is not finite, ``SegmentsError/notStarted`` or ``SegmentsError/stopped``.
    public func trackEvent(
        eventType: consuming String, properties: consuming [String: JSONValue] = [:], timestamp: Double? = nil
    ) throws(SegmentsError) {
        let state = lifecycle.atomic.load(ordering: .relaxed)
        guard _fastPath(!eventType.isEmpty && (timestamp?.isFinite ?? true) && state == .started) else {
            try Self.refuse(eventType: eventType, properties: properties, timestamp: timestamp, lifecycle: state)
        }
        let stamp = timestamp ?? IngestItem.stampWhenTaken
        // Builds the event in its ring slot and publishes it, inline. That is safe because the
        // caller did every retain of the parts before this call; nothing in this module calls
        // `trackEvent`, where inlining it into a caller that copies a dictionary could move the
        // copy's retain below the publication (see `EventRing.copy(_:into:)`).
        channels.ingestEvent(eventType: consume eventType, properties: consume properties, timestamp: stamp)
    }

    /// Identifies the current customer with hard ids (for example `["registered": "jane@example.com"]`)
    /// and/or updates customer properties. Ids are merged into the current ones; the cookie stays.
    ///
    /// When the hard ids change, the customer generation changes: checks in flight for the previous
    /// ids are dropped and no callback receives their data. Naming any hard id requests a check
    /// (reload trigger 3).
    ///
    /// Threading: any thread, a callback included; lock-free, and returns without waiting for the
    /// engine unless the ingestion ring is full (then it waits for room, as `trackEvent` does).
    ///
    /// - Throws: ``SegmentsError/invalidArgument(_:)`` for an empty key or value, a `cookie` key (the
    ///   engine owns the cookie; use ``anonymize()``), a call with neither ids nor properties, or a
    ///   property number that JSON cannot carry (NaN, an infinity, at any depth);
    ///   ``SegmentsError/notStarted`` or ``SegmentsError/stopped``.
    public func identifyCustomer(
        customerIds: [String: String] = [:], properties: [String: JSONValue] = [:]
    ) throws(SegmentsError) {
        if customerIds.isEmpty && properties.isEmpty {
            throw .invalidArgument("identifyCustomer needs customer ids or properties")
        }
        for (key, value) in customerIds {
            if key.isEmpty { throw .invalidArgument("a customer id key is empty") }
            if key == CustomerIdKey.cookie {
                throw .invalidArgument("the cookie is managed by the engine; use anonymize() for a new one")
            }
            if value.isEmpty { throw .invalidArgument("customer id \"\(key)\" is empty") }
        }
        if let path = JSONValue.firstNonFiniteNumber(in: properties) {
            throw .invalidArgument("customer property \(path) is not a finite number, which JSON cannot carry")
        }
        try requireStarted()
        let next = identity.update { current in
            var ids = current.customerIds
            ids.merge(customerIds) { _, new in new }
            guard ids != current.customerIds else { return nil }
            let hardIdsChanged = customerIds.contains { current.customerIds[$0.key] != $0.value }
            return IdentitySnapshot(
                customerIds: ids, generation: current.generation + (hardIdsChanged ? 1 : 0), isStopped: current.isStopped)
        }
        configuration.identityPublishedForTesting?()
        channels.ingest(.identify(next, properties: properties, namedHardId: !customerIds.isEmpty))
    }

    /// Switches to a new anonymous customer: mints a new cookie, drops hard ids, cancels any pending
    /// check, clears pending first loads and the previous customer's last known state. Registered
    /// callbacks stay.
    ///
    /// Threading: any thread, a callback included; lock-free, and returns without waiting for the
    /// engine unless the ingestion ring is full (then it waits for room, as `trackEvent` does).
    /// Before ``start()`` or after ``stop(timeout:)`` it does nothing but log a `Segments:` error.
    public func anonymize() {
        guard lifecycle.atomic.load(ordering: .relaxed) == .started else {
            configuration.logger.error("Segments: anonymize() ignored: the client is not running")
            return
        }
        let next = identity.update { current in
            IdentitySnapshot(
                customerIds: [CustomerIdKey.cookie: UUID().uuidString], generation: current.generation + 1, isStopped: current.isStopped)
        }
        registry.clearPendingFirstLoads()
        configuration.identityPublishedForTesting?()
        channels.ingest(.anonymize(next))
    }

    /// The current customer ids, cookie included.
    public var customerIds: [String: String] { identity.load().customerIds }

    /// Uploads every buffered event now, whatever the flushing mode; after a failed upload, at its
    /// retry time (the backoff, or the server's `Retry-After`), not sooner. Returns at once. Before
    /// ``start()`` or after ``stop(timeout:)`` it does nothing but log a `Segments:` error (``stop(timeout:)``
    /// makes its own last upload attempt).
    public func flush() {
        guard lifecycle.atomic.load(ordering: .relaxed) == .started else {
            configuration.logger.error("Segments: flush() ignored: the client is not running")
            return
        }
        // Every item whose call returned before this one has claimed a position below this; the
        // engine may take this message before it drained them.
        channels.post(.flush(through: channels.ring.claimedPositions))
    }

    /// Returns once everything tracked before the call (events, and the customer updates of
    /// `identifyCustomer`) is durable in the event journal (``SegmentsConfiguration/journal``):
    /// written, and flushed to the device (`fsync`; on Apple platforms `F_FULLFSYNC`) whatever the
    /// journal's ``JournalConfiguration/Durability``. The customer the calls before it left (an
    /// `anonymize()`, new hard ids) is in the state file by then too, unless that write failed
    /// (a `Segments:` error says so). It uploads nothing (``flush()`` does).
    ///
    /// Threading: any thread; it suspends, never blocks a thread. The engine thread answers it
    /// once it has taken from the ingestion ring every item claimed before the call (a
    /// `trackEvent` that returned before it was called) and committed them, so it waits at most
    /// for the events already in the ring, not for the network. Its task's cancellation does not
    /// end the wait.
    ///
    /// Durable means at least once, not exactly once: an event the journal holds is uploaded,
    /// even if the process dies before then (it is sent at the next start on the same state
    /// directory). If the process dies after the server accepted an upload but before the engine
    /// recorded the acknowledgement in the journal, that upload is sent again at the next start:
    /// the server may receive duplicates, never fewer events than were made durable.
    ///
    /// - Throws: ``SegmentsError/journalUnavailable(_:)`` when no journal is configured, when it
    ///   is set aside for the run (a journal file could not be read at start), or when it is full
    ///   or cannot be written or synced (the events are then kept in memory and
    ///   uploaded as usual, but would not survive a crash); ``SegmentsError/notStarted`` or
    ///   ``SegmentsError/stopped`` (also when the client stops while the call waits).
    public func flushJournal() async throws(SegmentsError) {
        try requireStarted()
        guard configuration.journal != nil else {
            throw .journalUnavailable("no event journal is configured (SegmentsConfiguration.journal with a stateDirectory)")
        }
        // Every item whose call returned before this one has claimed a position below this.
        let through = channels.ring.claimedPositions
        let channels = channels
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, SegmentsError>, Never>) in
            channels.post(.journalFlush(through: through, completion: { continuation.resume(returning: $0) }))
        }
        try result.get()
    }

    // MARK: Pull

    /// The current customer's segments of `category`: from the cache if it is younger than
    /// ``SegmentsConfiguration/cacheTTL`` and belongs to the current customer (and `force` is false),
    /// else fetched once for all concurrent callers. Only the requested category is returned.
    ///
    /// - Throws: the fetch's ``SegmentsError``; ``SegmentsError/customerChanged`` if the customer kept
    ///   changing during the fetch; ``SegmentsError/notStarted`` / ``SegmentsError/stopped``;
    ///   ``SegmentsError/invalidArgument(_:)`` for an empty category; ``SegmentsError/cancelled`` as
    ///   soon as the calling task is cancelled while it waits for the engine (the fetch goes on for
    ///   other callers and the cache).
    public func getSegments(category: SegmentCategory, force: Bool = false) async throws(SegmentsError) -> [Segment] {
        guard category.isValid else { throw .invalidArgument("the category name is empty") }
        try requireStarted()
        if !force, let cached = cachedSegments(category) { return cached }
        return try await awaitPull(category: category, force: force).get()
    }

    /// The completion form of ``getSegments(category:force:)`` that Exponea's SDK has: `result` runs on
    /// a background thread with the segments, or with `[]` when there is no data to give (not
    /// started, stopped, or the fetch failed, which is logged as a `Segments:` warning), so `[]` does
    /// not tell "no segments" from "failed": ``getSegments(category:force:completion:)`` does.
    public func getSegments(category: SegmentCategory, force: Bool = false, result: @escaping @Sendable ([Segment]) -> Void) {
        let logger = configuration.logger
        getSegments(category: category, force: force, completion: { outcome in
            switch outcome {
            case .success(let segments): result(segments)
            case .failure(let error):
                logger.warning("Segments: getSegments(\(category)) returns [] because: \(error)")
                result([])
            }
        })
    }

    func cachedSegments(_ category: SegmentCategory) -> [Segment]? {
        let hit = pullCache.lookup(category, generation: identity.generation, now: configuration.clock.continuousNow())
        if hit != nil { counters.pullCacheHits.wrappingIncrement(ordering: .relaxed) }
        return hit
    }

    // MARK: Observation

    /// Counters of what the client has done so far.
    public var statistics: SegmentsStatistics {
        counters.snapshot(producerStalls: channels.producerStalls.atomic.load(ordering: .relaxed))
    }

    /// What the event journal has written so far, for `segments-bench` and tests.
    package var journalStatistics: JournalStatistics {
        JournalStatistics(
            bytesWritten: counters.journalBytesWritten.load(ordering: .relaxed),
            writes: counters.journalWrites.load(ordering: .relaxed),
            fsyncs: counters.journalFsyncs.load(ordering: .relaxed),
            itemsWritten: counters.journalItemsWritten.load(ordering: .relaxed))
    }

    /// CPU time the engine's own thread has used so far, in nanoseconds: the consumer's side of
    /// ingestion, with everything else the engine does. `nil` before ``start()``, after the engine
    /// ended, for an engine in a ``SegmentsEngineGroup``, and off Linux. For the harness.
    package var engineThreadCPUNanoseconds: Int? { counters.engineThreadCPUNanoseconds }

    /// Times a `trackEvent` (or identity change) found the ring full for long enough to park
    /// until the engine freed its slot. For the harness.
    package var producerParks: Int { channels.ring.parkCount }

    /// Blocks until every call made before it has been processed, every fetch and upload it started
    /// has completed, and every callback and completion it caused has returned; `false` if that
    /// did not happen within `timeout` (real time). Pending timers do not count. Before
    /// ``start()`` it returns `true` at once; after ``stop()`` it waits for what is still running.
    ///
    /// Package-level: RealtimeSegmentsTesting's `waitUntilIdle(timeout:)` is its public face, for
    /// tests and the harness. Never from a callback (it would wait for itself).
    package func waitUntilSettled(timeout: Duration) -> Bool {
        // After stop the barrier is answered at once (the inbox is closed), so this waits only for
        // the work still counted as outstanding.
        guard lifecycle.atomic.load(ordering: .acquiring) != .created else { return true }
        let deadline = DispatchTime.after(timeout)
        while true {
            let barrier = DispatchSemaphore(value: 0)
            // Answered once the items claimed before it were drained and their work started.
            channels.post(.barrier(barrier, through: channels.ring.claimedPositions))
            if barrier.wait(timeout: deadline) == .timedOut { return false }
            configuration.settleBarrierAnsweredForTesting?()
            // After stop the ring no longer counts: nothing will take from it.
            if !channels.hasOutstandingWork && (channels.ring.isEmpty || lifecycle.atomic.load(ordering: .acquiring) == .stopped) {
                return true
            }
            if DispatchTime.now() >= deadline { return false }
            usleep(100)
        }
    }
}

/// Carries the owner's Sendable ingredients onto the engine thread, where the (thread-confined)
/// ``EngineOwner`` is built.
private struct OwnerBox: Sendable {
    var configuration: SegmentsConfiguration
    var channels: EngineChannels
    var identity: IdentityCell
    var registry: CallbackRegistry
    var pullCache: PullCache
    var counters: EngineCounters
    var initial: EngineOwner.Initial

    func makeOwner() -> EngineOwner {
        EngineOwner(
            configuration: configuration, channels: channels, identity: identity, registry: registry,
            pullCache: pullCache, counters: counters, initial: initial)
    }
}

extension SegmentsConfiguration {
    /// Without a state directory, and so without the journal kept there: the directory is left to
    /// another client or project.
    fileprivate mutating func keepStateInMemory() {
        stateDirectory = nil
        journal = nil
    }
}
