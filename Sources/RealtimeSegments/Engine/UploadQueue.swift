import DequeModule

/// The uploads waiting to go out, in tracking order, and what to send after each answer.
///
/// The rules (SPEC §7, "nothing is lost"):
/// - a transient failure (network, timeout, 408, 429, 5xx, a 2xx body of the wrong shape) keeps
///   the upload and retries it after an exponential, jittered backoff, or after the server's
///   `Retry-After` if that is longer;
/// - a command the server refuses for good (`"success": false`, or a 4xx other than 401, 403, 404
///   and 408) is taken out of the queue and returned to be set aside; when a whole upload of several
///   commands is refused, it is sent again in halves until each refused command stands alone, so
///   the commands around it still go out;
/// - a configuration error (401, 403: a wrong key; 404: a wrong project or base URL) stops
///   uploads for the client's life: every item is kept.
///
/// A pure state machine: it performs no I/O and reads no clock. Engine thread only.
struct UploadQueue {
    /// One upload: a customer update alone, or a run of events (an update changes who the following
    /// events belong to upstream, so the two are never sent in one upload).
    enum Upload {
        case events([TrackedEvent])
        case customer(CustomerUpdate)
    }

    /// What an answer did to the queue.
    struct Resolution {
        /// Events the server accepted (reload trigger 4 when above 0).
        var eventsDelivered = 0
        /// Items the server refused for good, taken out of the queue, each with the reason.
        var setAside: [(item: UploadItem, reason: String)] = []
        /// Items taken off the front of the queue (accepted or set aside).
        var removed = 0
        /// Why the rest of the upload was not delivered, if it was not.
        var failure: SegmentsError?
        /// When the failure is retried; `nil` when the next upload may go at once or, if
        /// ``paused``, never.
        var retryDelay: Duration?
        /// The failure stopped uploads for the client's life.
        var paused = false
    }

    /// How the queue treats a failed upload.
    enum FailureKind: Equatable {
        /// Kept and sent again after a backoff.
        case transient
        /// Refused for good: split until the refused command is found, which is set aside.
        case refusal
        /// A wrong key, project or base URL: uploads stop, nothing is dropped.
        case configuration
    }

    private(set) var items: Deque<UploadItem>
    /// How many items from the front are in flight, if an upload is.
    private(set) var inFlight: Int?
    /// The error that stopped uploads for good, if one did.
    private(set) var pausedBy: SegmentsError?
    private var consecutiveFailures = 0
    /// Items at the front known to hold at least one refused command, and how many of them the
    /// next upload carries: halved at each refusal, so a refused command ends up alone.
    private var suspect = 0
    private var probe = 0

    init(_ items: some Sequence<UploadItem>) {
        self.items = Deque(items)
    }

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var isInFlight: Bool { inFlight != nil }

    mutating func append(_ item: UploadItem) {
        items.append(item)
    }

    /// Takes the next upload off the front (it stays queued until answered), or `nil` if one is in
    /// flight, the queue is empty or uploads are stopped.
    mutating func next(maxBatchSize: Int) -> Upload? {
        guard inFlight == nil, pausedBy == nil, let first = items.first else { return nil }
        if case .customer(let update) = first {
            inFlight = 1
            return .customer(update)
        }
        let limit = suspect > 0 ? min(maxBatchSize, probe, suspect) : maxBatchSize
        var batch: [TrackedEvent] = []
        for item in items {
            guard batch.count < limit, case .event(let event) = item else { break }
            batch.append(event)
        }
        inFlight = batch.count
        return .events(batch)
    }

    /// Applies the answer to the upload in flight: `nil` if the server accepted all of it.
    mutating func resolve(
        _ error: SegmentsError?, policy: RetryPolicy, random: inout some RandomNumberGenerator
    ) -> Resolution {
        guard let sent = inFlight else { return Resolution() }
        inFlight = nil
        guard let error else { return take(sent, refused: []) }
        guard case .partialUpload(let answered, let refused, let then) = error else {
            var resolution = Resolution()
            fail(error, of: sent, into: &resolution, policy: policy, random: &random)
            return resolution
        }
        let answeredCount = min(max(0, answered), sent)
        var resolution = take(answeredCount, refused: refused.filter { (0..<answeredCount).contains($0.index) })
        if answeredCount < sent {
            let cause = then ?? .malformedResponse("the server answered \(answeredCount) of \(sent) commands")
            fail(cause, of: sent - answeredCount, into: &resolution, policy: policy, random: &random)
        }
        return resolution
    }

    /// How `error` is treated when an upload fails with it.
    static func kind(of error: SegmentsError) -> FailureKind {
        switch error {
        case .unauthorized, .notFound: .configuration
        case .unexpectedStatus(let status) where (400..<500).contains(status) && status != 408: .refusal
        case .invalidArgument: .refusal  // the body could not be encoded: it never will be
        case .partialUpload(_, _, let then): then.map(kind(of:)) ?? .transient
        default: .transient
        }
    }

    /// Removes `count` answered items from the front; those in `refused` are set aside.
    private mutating func take(_ count: Int, refused: [CommandRefusal]) -> Resolution {
        var resolution = Resolution()
        let reasons = Dictionary(refused.map { ($0.index, $0.reason) }, uniquingKeysWith: { first, _ in first })
        for index in 0..<count {
            let item = items.removeFirst()
            if let reason = reasons[index] {
                resolution.setAside.append((item, reason))
            } else if case .event = item {
                resolution.eventsDelivered += 1
            }
        }
        resolution.removed = count
        if count > 0 { consecutiveFailures = 0 }
        shrinkSuspect(by: count)
        return resolution
    }

    /// Records a failure of the `count` items now at the front.
    private mutating func fail(
        _ error: SegmentsError, of count: Int, into resolution: inout Resolution,
        policy: RetryPolicy, random: inout some RandomNumberGenerator
    ) {
        resolution.failure = error
        switch Self.kind(of: error) {
        case .configuration:
            pausedBy = error
            resolution.paused = true
        case .refusal where count == 1:
            resolution.setAside.append((items.removeFirst(), error.description))
            resolution.removed += 1
            shrinkSuspect(by: 1)
        case .refusal:
            suspect = max(suspect, count)
            probe = max(1, count / 2)
        case .transient:
            consecutiveFailures += 1
            var delay = policy.delay(afterFailures: consecutiveFailures, random: &random)
            if let asked = error.retryAfter, asked > delay { delay = asked }
            resolution.retryDelay = delay
        }
    }

    private mutating func shrinkSuspect(by count: Int) {
        suspect = max(0, suspect - count)
        if suspect == 0 { probe = 0 }
    }
}
