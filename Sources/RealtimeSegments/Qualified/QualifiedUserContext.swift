import Atomics
import Dispatch

/// One user, as qualified segments see them (SPEC §9): fetch the segments the user is qualified
/// for, then ask ``isQualifiedFor(segment:)``.
///
/// ```swift
/// let user = try client.createUserContext(userId: "jane")
/// try await user.fetchQualifiedSegments()
/// if user.isQualifiedFor(segment: "frequent-buyers") { … }
/// ```
///
/// ``qualifiedSegments`` starts as `nil`. Unlike the reference SDK, a fetch does **not** clear it
/// when it starts: readers keep seeing the previous value until the fetch ends, so a
/// decision made during a fetch is not made as if the user had no segments. A successful fetch
/// stores its answer before the call returns or its completion runs; a failed fetch sets it to
/// `nil`, as the reference SDK leaves it, since the previous answer may no longer hold (the server
/// may have said the user is unknown). A cancelled fetch changes nothing.
///
/// When calls overlap, the latest *started* one wins: a fetch that completes after a later fetch
/// or a later assignment to ``qualifiedSegments`` does not overwrite their value.
///
/// Threading: every member may be called from any thread; reads and writes of the segments take
/// one short lock (a fetch or an assignment also takes a ticket from an atomic counter).
public final class QualifiedUserContext: Sendable {
    /// The user id: sent as `vuid` if it starts with `vuid_` (any case), else as `fs_user_id`.
    public let userId: String
    /// The attributes the context was created with (not sent by the fetch).
    public let attributes: [String: JSONValue]

    private struct State {
        /// The segments with their set, for O(1) ``isQualifiedFor(segment:)``.
        var answer: QualifiedAnswer?
        /// The ticket of the call that stored `answer` (0: none yet).
        var storedTicket: UInt64 = 0
    }

    private let fetcher: QualifiedSegmentsFetcher
    /// The id, key and cache key the fetcher needs, derived once here rather than per fetch.
    private let user: QualifiedSegmentsFetcher.User
    private let state = Locked(State())
    /// The last ticket handed to a fetch or an assignment: calls are ordered by when they started.
    private let lastTicket = ManagedAtomic<UInt64>(0)

    init(userId: String, attributes: [String: JSONValue], fetcher: QualifiedSegmentsFetcher) {
        self.userId = userId
        self.attributes = attributes
        self.fetcher = fetcher
        self.user = QualifiedSegmentsFetcher.User(id: userId)
    }

    /// The segments the user is qualified for, in server order: `nil` until a fetch succeeds or a
    /// value is assigned. Assigning bypasses the fetch (for tests and debugging).
    public var qualifiedSegments: [String]? {
        get { state.withLock { $0.answer?.names } }
        set {
            let answer = newValue.map(QualifiedAnswer.init)  // the set is built outside the lock
            store(answer, ticket: takeTicket())
        }
    }

    /// Whether `segment` is among ``qualifiedSegments`` (`false` while they are `nil`). O(1).
    public func isQualifiedFor(segment: String) -> Bool {
        state.withLock { $0.answer?.lookup.contains(segment) ?? false }
    }

    /// Fetches the user's qualified segments into ``qualifiedSegments``, from the client's cache or
    /// the server (one request for all concurrent callers asking about the same user).
    ///
    /// Threading: a cache hit returns without suspending; a request runs outside the cooperative
    /// pool (one shared thread, or a queue of its own when the transport may block).
    /// Errors: ``SegmentsError/invalidSegmentIdentifier`` when the server does not know the user;
    /// ``SegmentsError/fetchSegmentsFailed(_:)`` with `"apiKey/apiHost not defined"`,
    /// `"transport does not support qualified segments"`, `"network error"`, an HTTP status,
    /// `"decode error"` or the server error's classification (its message when it has none);
    /// ``SegmentsError/invalidCredentials(_:)`` when the API key cannot be sent (a control character).
    /// A failure sets ``qualifiedSegments`` to `nil` and is also logged as a `Segments:` line.
    /// Cancelling the calling task returns
    /// ``SegmentsError/cancelled`` at once and stores nothing; the request goes on for the other
    /// callers and the cache.
    public func fetchQualifiedSegments(options: [QualifiedSegmentOption] = []) async throws(SegmentsError) {
        let ticket = takeTicket()
        let result = await fetcher.fetch(user, options: options)
        try apply(result, ticket: ticket)
    }

    /// The completion form of the async `fetchQualifiedSegments(options:)`: `completion` gets `nil`
    /// on success (after ``qualifiedSegments`` is stored) or the error.
    ///
    /// Threading: when the answer is known at once (a cache hit, no segments to check, a missing
    /// API key), `completion` runs synchronously on the caller's thread before this returns.
    /// Otherwise it runs later on a Dispatch global queue, never on the request thread.
    public func fetchQualifiedSegments(
        options: [QualifiedSegmentOption] = [], completion: @escaping @Sendable (SegmentsError?) -> Void
    ) {
        let ticket = takeTicket()
        switch fetcher.begin(user, options: options) {
        case .done(let result):
            completion(errorOf { () throws(SegmentsError) in try apply(result, ticket: ticket) })
        case .inFlight(let flight):
            flight.wait { [self] result in
                let error = errorOf { () throws(SegmentsError) in try apply(result, ticket: ticket) }
                DispatchQueue.global(qos: .utility).async { completion(error) }
            }
        }
    }

    /// The blocking form of the async `fetchQualifiedSegments(options:)`: returns once
    /// ``qualifiedSegments`` is stored, or throws.
    ///
    /// Threading: a cache hit (or any answer known at once) returns on the caller's thread without a
    /// hop. Otherwise the calling thread waits while the request runs outside the cooperative
    /// pool, so even callers blocking every pool thread cannot deadlock it. It still holds the
    /// calling thread for a whole round trip (bounded by the transport's deadline): prefer the
    /// async form in async code, and never call it from a transport. Called from code the qualified
    /// segments thread runs (a log handler, with a transport that never blocks), where the request
    /// would wait for the caller, it throws ``SegmentsError/fetchSegmentsFailed(_:)`` instead of
    /// waiting.
    public func fetchQualifiedSegmentsAndWait(options: [QualifiedSegmentOption] = []) throws(SegmentsError) {
        let ticket = takeTicket()
        let result = fetcher.fetchBlocking(user, options: options)
        try apply(result, ticket: ticket)
    }

    /// The blocking form under the reference SDK's name: in synchronous code, `try
    /// user.fetchQualifiedSegments()` is this call, as Optimizely's documentation writes it; in
    /// async code the same words are the async form. Same as
    /// ``fetchQualifiedSegmentsAndWait(options:)``, whose threading it shares.
    public func fetchQualifiedSegments(options: [QualifiedSegmentOption] = []) throws(SegmentsError) {
        try fetchQualifiedSegmentsAndWait(options: options)
    }

    // MARK: Storing

    /// A ticket later than every one handed out before: taken when a call starts, without the lock.
    private func takeTicket() -> UInt64 {
        lastTicket.wrappingIncrementThenLoad(ordering: .relaxed)
    }

    /// Stores a success's answer, or `nil` for a failure (as the reference SDK leaves it: the
    /// previous answer may no longer hold), then rethrows the failure. A cancelled call stores
    /// nothing: the caller gave up on it, and nothing was learned about the user.
    private func apply(_ result: QualifiedSegmentsFetcher.Outcome, ticket: UInt64) throws(SegmentsError) {
        switch result {
        case .success(let answer):
            store(answer, ticket: ticket)
        case .failure(let error):
            if error != .cancelled { store(nil, ticket: ticket) }
            throw error
        }
    }

    /// Stores `answer` (prebuilt, so a cache hit builds nothing) in one lock step, unless a call
    /// that started later already stored its own.
    private func store(_ answer: QualifiedAnswer?, ticket: UInt64) {
        state.withLock { state in
            guard ticket > state.storedTicket else { return }
            state.answer = answer
            state.storedTicket = ticket
        }
    }

    private func errorOf(_ body: () throws(SegmentsError) -> Void) -> SegmentsError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
