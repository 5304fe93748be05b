import Dispatch
import Logging

/// Answers "which segments is this user qualified for?" for one client: from the cache, or from
/// one transport request shared by every concurrent caller for the same user (SPEC §9).
///
/// The steps of a fetch, in order:
/// 1. no API key → ``SegmentsError/fetchSegmentsFailed(_:)`` `"apiKey/apiHost not defined"`;
/// 2. no segments to check → `[]` (no request, no cache write);
/// 3. `resetCache` → the whole cache is emptied and requests in flight are forgotten (their
///    answers are not cached and nobody joins them any more);
/// 4. unless `ignoreCache`, a cache hit is the answer;
/// 5. a transport that is not a ``QualifiedSegmentsTransport`` → `fetchSegmentsFailed`;
/// 6. otherwise the caller joins the request in flight for the user, or sends one. An
///    `ignoreCache` caller always sends its own, which later plain callers may join. A success is
///    cached unless every participant passed `ignoreCache`; errors are never cached.
///
/// Steps 1–4 run synchronously on the caller's thread, so hits cost no hop. Requests never run on
/// the cooperative pool: on ``QualifiedFetchExecutor`` when the transport never blocks, else each
/// on a queue of its own (``SerialQueueTaskExecutor``), so one that blocks holds up no other.
///
/// Threading: every method may be called from any thread.
final class QualifiedSegmentsFetcher: Sendable {
    /// The answer to one fetch.
    typealias Outcome = Result<QualifiedAnswer, SegmentsError>

    /// A user as the fetcher keys it, derived once per ``QualifiedUserContext`` rather than on
    /// every fetch (the key needs a lowercased copy of the id).
    struct User: Sendable {
        /// The user id, sent as the user value.
        let id: String
        /// ``QualifiedUserKey/key(for:)`` of the id.
        let key: QualifiedUserKey
        /// ``QualifiedSegmentsCache/key(userKey:userValue:)``, also the key of requests in flight.
        let cacheKey: String

        init(id: String) {
            self.id = id
            key = QualifiedUserKey.key(for: id)
            cacheKey = QualifiedSegmentsCache.key(userKey: key, userValue: id)
        }
    }

    /// What ``begin(_:options:)`` found.
    enum Start {
        /// The answer is known already (an early error, no segments to check, a cache hit).
        case done(Outcome)
        /// The answer comes with this flight.
        case inFlight(QualifiedFetchFlight)
    }

    let cache: QualifiedSegmentsCache
    private let configuration: QualifiedSegmentsConfiguration?
    private let transport: (any QualifiedSegmentsTransport)?
    private let transportName: String
    /// The transport's ``SegmentsTransport/neverBlocks``: only then do its requests share the one
    /// ``QualifiedFetchExecutor`` thread.
    private let transportNeverBlocks: Bool
    private let logger: Logger
    /// Requests in flight by cache key. Lock order: this lock, then the cache's.
    private let flights = Locked<[String: QualifiedFetchFlight]>([:])

    init(configuration: SegmentsConfiguration) {
        let qualified = configuration.qualifiedSegments
        self.configuration = qualified
        let flights = flights
        cache = QualifiedSegmentsCache(
            maxUsers: qualified?.cacheSize ?? QualifiedSegmentsCache.defaultSize,
            timeout: qualified?.cacheTimeout ?? QualifiedSegmentsCache.defaultTimeout,
            clock: configuration.clock,
            willRemove: { key in
                // That user's answer in flight is to a question asked before the removal.
                flights.withLock { table in
                    table[key]?.forget()
                    table[key] = nil
                }
            })
        transport = configuration.transport as? any QualifiedSegmentsTransport
        transportName = String(describing: type(of: configuration.transport))
        transportNeverBlocks = configuration.transport.neverBlocks
        logger = configuration.logger
    }

    /// How many callers wait for the request in flight for `user`, 0 if none is.
    func waiterCount(for user: User) -> Int {
        flights.withLock { $0[user.cacheKey] }?.waiterCount ?? 0
    }

    /// Runs steps 1–6 up to the point where an answer needs waiting for.
    func begin(_ user: User, options: [QualifiedSegmentOption]) -> Start {
        guard let configuration, let apiKey = configuration.apiKey, !apiKey.isEmpty else {
            return .done(failure(.fetchSegmentsFailed("apiKey/apiHost not defined")))
        }
        guard !configuration.segmentsToCheck.isEmpty else { return .done(.success(QualifiedAnswer([]))) }
        let key = user.cacheKey
        let ignoreCache = options.contains(.ignoreCache)

        if options.contains(.resetCache) {
            flights.withLock { flights in
                cache.reset()
                flights.removeAll()
            }
        }
        if !ignoreCache, let hit = cache.lookupAnswer(key) {
            logger.trace("Segments: Qualified segments of \(key) served from the cache")
            return .done(.success(hit))
        }
        guard let transport else {
            return .done(failure(.fetchSegmentsFailed("transport does not support qualified segments"),
                                 detail: "\(transportName) does not implement QualifiedSegmentsTransport"))
        }

        enum Decision {
            case hit(QualifiedAnswer)
            case join(QualifiedFetchFlight)
            case send(QualifiedFetchFlight)
        }
        // Checked again under the flights lock: a request that ended between the lookup above and
        // here has saved its answer and left the table in one step, so no answer is missed.
        let decision: Decision = flights.withLock { flights in
            let epoch = cache.epoch
            if !ignoreCache {
                // A request sent before a reset answers a question asked before it.
                if let flight = flights[key], flight.cacheEpoch == epoch {
                    flight.requestCaching()
                    return .join(flight)
                }
                if let hit = cache.peekAnswer(key) { return .hit(hit) }
            }
            let flight = QualifiedFetchFlight(cacheEpoch: epoch, savesToCache: !ignoreCache)
            if flights[key].map({ $0.cacheEpoch != epoch }) ?? true { flights[key] = flight }
            return .send(flight)
        }
        switch decision {
        case .hit(let answer):
            return .done(.success(answer))
        case .join(let flight):
            logger.trace("Segments: Qualified segments fetch of \(key) joins the request in flight")
            return .inFlight(flight)
        case .send(let flight):
            let query = QualifiedSegmentsQuery(
                userKey: user.key, userValue: user.id, segmentsToCheck: configuration.segmentsToCheck)
            send(query, apiKey: apiKey, key: key, flight: flight, transport: transport)
            return .inFlight(flight)
        }
    }

    /// The answer, waiting in the current task if it needs a request.
    func fetch(_ user: User, options: [QualifiedSegmentOption]) async -> Outcome {
        switch begin(user, options: options) {
        case .done(let result): result
        case .inFlight(let flight): await flight.value()
        }
    }

    /// The answer, blocking the calling thread if it needs a request (the request itself runs off
    /// the cooperative pool, so this never starves it). On ``QualifiedFetchExecutor``'s own thread
    /// (code it runs: a log handler), where the request would wait for the caller, it fails with
    /// ``SegmentsError/fetchSegmentsFailed(_:)`` instead of waiting (the request still goes out, and
    /// its answer is cached).
    func fetchBlocking(_ user: User, options: [QualifiedSegmentOption]) -> Outcome {
        switch begin(user, options: options) {
        case .done(let result):
            return result
        case .inFlight where transportNeverBlocks && QualifiedFetchExecutor.shared.thread.isCurrent:
            return failure(.fetchSegmentsFailed(
                "the blocking fetch was called on the qualified segments thread, which would have to run its request; use the async or completion form there"))
        case .inFlight(let flight):
            let box = Locked<Outcome?>(nil)
            let done = DispatchSemaphore(value: 0)
            flight.wait { result in
                box.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            // The waiter stores the result before it signals.
            return box.withLock { $0 }!
        }
    }

    private func send(
        _ query: QualifiedSegmentsQuery, apiKey: String, key: String, flight: QualifiedFetchFlight,
        transport: any QualifiedSegmentsTransport
    ) {
        logger.debug("Segments: Fetching qualified segments of \(key)")
        // Unstructured, so a caller's cancellation cannot fail the others who joined.
        // A request that may block gets a queue of its own, so it holds up no other request.
        let executor: any TaskExecutor = transportNeverBlocks
            ? QualifiedFetchExecutor.shared : SerialQueueTaskExecutor(label: "Segments.qualified")
        Task(executorPreference: executor) { [self] in
            let result: Outcome
            do throws(SegmentsError) {
                // The set is built here, once per answer, off every caller's thread.
                result = .success(QualifiedAnswer(try await transport.fetchQualifiedSegments(query, apiKey: apiKey)))
            } catch {
                result = .failure(error)
            }
            finish(key: key, flight: flight, result: result)
        }
    }

    private func finish(key: String, flight: QualifiedFetchFlight, result: Outcome) {
        flights.withLock { flights in
            if case .success(let answer) = result, flight.savesToCache {
                cache.save(key, answer, ifEpoch: flight.cacheEpoch)
            }
            if flights[key] === flight { flights[key] = nil }
        }
        if case .failure(let error) = result {
            logger.warning("Segments: Fetch of qualified segments of \(key) failed: \(error)")
        } else {
            logger.debug("Segments: Fetched qualified segments of \(key)")
        }
        flight.resolve(result)
    }

    private func failure(_ error: SegmentsError, detail: String? = nil) -> Outcome {
        logger.warning("Segments: Fetch of qualified segments failed: \(error)\(detail.map { " (\($0))" } ?? "")")
        return .failure(error)
    }
}
