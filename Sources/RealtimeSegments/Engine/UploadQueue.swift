import DequeModule

/// The uploads waiting to go out, in tracking order, and what to send after each answer.
///
/// The rules (SPEC §7, "nothing is lost"):
/// - a transient failure (network, timeout, 408, 429, 5xx, a 2xx body of the wrong shape) keeps
///   the upload and retries it after an exponential, jittered backoff, or, if the server's
///   `Retry-After` is longer, after that spread by the same jitter above it;
/// - a command the server refuses for good (`"success": false`, or a 4xx other than 401, 403, 404
///   and 408) is taken out of the queue and returned to be set aside; when a whole upload of several
///   commands is refused, it is sent again in halves until each refused command stands alone, so
///   the commands around it still go out;
/// - a configuration error (401, 403: a wrong key; 404 or a redirect, 3xx: a wrong project or base
///   URL) stops uploads until ``resume()`` (the engine calls it when a fetch from the same server
///   succeeds, and to retry after the policy's longest backoff, then at doubling intervals up to
///   an hour) or the client's end: every item is kept.
///
/// A pure state machine: it performs no I/O and reads no clock. Engine thread only.
struct UploadQueue {
    /// One upload: a customer update alone, or a run of events (an update changes who the following
    /// events belong to upstream, so the two are never sent in one upload).
    enum Upload {
        case events([TrackedEvent])
        case customer(CustomerUpdate)

        var count: Int {
            switch self {
            case .events(let events): events.count
            case .customer: 1
            }
        }

        /// The upload as queue items, in order.
        var items: [UploadItem] {
            switch self {
            case .events(let events): events.map { .event($0) }
            case .customer(let update): [.customer(update)]
            }
        }
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
        /// The failure stopped uploads until ``UploadQueue/resume()``.
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

    /// The items not in flight, in tracking order.
    private var waiting: Deque<UploadItem>
    /// The uploads in flight, sent one after another in this order (empty when none is): their
    /// items are moved out of ``waiting`` rather than copied, so that handing a batch to the
    /// transport costs no reference-count traffic per event, and put back at the front when they
    /// are not accepted.
    private var inFlightUploads: [Upload] = []
    /// The error that stopped uploads, if one did and they have not resumed.
    private(set) var pausedBy: SegmentsError?
    private var consecutiveFailures = 0
    /// Items at the front known to hold at least one refused command, and how many of them the
    /// next upload carries: halved at each refusal, so a refused command ends up alone.
    private var suspect = 0
    private var probe = 0

    init(_ items: some Sequence<UploadItem>) {
        self.waiting = Deque(items)
    }

    var isEmpty: Bool { waiting.isEmpty && inFlightUploads.isEmpty }
    var count: Int { waiting.count + inFlightUploads.reduce(0) { $0 + $1.count } }
    var isInFlight: Bool { !inFlightUploads.isEmpty }

    /// Every item, in tracking order: the uploads in flight first. A copy, for the state file.
    var items: [UploadItem] {
        var all: [UploadItem] = []
        all.reserveCapacity(count)
        for upload in inFlightUploads { all += upload.items }
        all += waiting
        return all
    }

    /// The last `count` items (or all of them, if fewer), in tracking order.
    func lastItems(_ count: Int) -> [UploadItem] {
        guard count < waiting.count else { return Array(items.suffix(count)) }
        return Array(waiting.suffix(count))
    }

    /// What the next upload will carry, for a log line.
    func describeNext(maxBatchSize: Int) -> String {
        if case .customer = waiting.first { return "customer update" }
        let events = waiting.prefix(maxBatchSize).prefix { if case .event = $0 { true } else { false } }
        return "\(events.count) events"
    }

    mutating func append(_ item: UploadItem) {
        waiting.append(item)
    }

    /// Takes the next uploads off the front, at most `maxUploads` of them to be sent one after
    /// another (they count as queued until answered), or `nil` if uploads are in flight, the queue
    /// is empty or uploads are stopped. While a refused command is being searched for, one upload.
    mutating func next(maxBatchSize: Int, maxUploads: Int = 1) -> [Upload]? {
        guard inFlightUploads.isEmpty, pausedBy == nil, !waiting.isEmpty else { return nil }
        let uploadLimit = suspect > 0 ? 1 : max(maxUploads, 1)
        while inFlightUploads.count < uploadLimit, let first = waiting.first {
            if case .customer(let update) = first {
                waiting.removeFirst()
                inFlightUploads.append(.customer(update))
                continue
            }
            let limit = suspect > 0 ? min(maxBatchSize, probe, suspect) : maxBatchSize
            let runLength = waiting.prefix(limit).prefix { if case .event = $0 { true } else { false } }.count
            var batch: [TrackedEvent] = []
            batch.reserveCapacity(runLength)
            for _ in 0..<runLength {
                guard case .event(let event) = waiting.removeFirst() else { preconditionFailure("the run holds events only") }
                batch.append(event)
            }
            inFlightUploads.append(.events(batch))
        }
        return inFlightUploads
    }

    /// Applies the answer to the uploads in flight: the first `outcome.accepted` of them were
    /// accepted whole; `outcome.error`, if any, is how the next one failed (the ones after it were
    /// not sent).
    mutating func resolve(
        _ outcome: UploadOutcome, policy: RetryPolicy, random: inout some RandomNumberGenerator
    ) -> Resolution {
        guard !inFlightUploads.isEmpty else { return Resolution() }
        let uploads = inFlightUploads
        inFlightUploads = []
        var resolution = Resolution()
        let accepted = min(max(outcome.accepted, 0), uploads.count)
        for upload in uploads[..<accepted] { accept(upload, into: &resolution) }
        guard accepted < uploads.count else { return resolution }
        // The rest go back to the front, in order: what is not accepted below is taken from there.
        for upload in uploads[accepted...].reversed() { waiting.prepend(contentsOf: upload.items) }
        guard let error = outcome.error else { return resolution }
        let sent = uploads[accepted].count
        guard case .partialUpload(let answered, let refused, let then) = error else {
            fail(error, of: sent, into: &resolution, policy: policy, random: &random)
            return resolution
        }
        let answeredCount = min(max(0, answered), sent)
        take(answeredCount, refused: refused.filter { (0..<answeredCount).contains($0.index) }, into: &resolution)
        if answeredCount < sent {
            let cause = then ?? .malformedResponse("the server answered \(answeredCount) of \(sent) commands")
            fail(cause, of: sent - answeredCount, into: &resolution, policy: policy, random: &random)
        }
        return resolution
    }

    /// How `error` is treated when an upload fails with it.
    static func kind(of error: SegmentsError) -> FailureKind {
        switch error {
        // Not SPEC §7's "other 4xx, set aside": a wrong key, project or URL refuses every event
        // alike, so setting them aside would discard all of them. They wait for a fixed server,
        // retried at intervals that grow to an hour (the engine's), not at the backoff's pace.
        case .unauthorized, .notFound, .invalidCredentials: .configuration
        case .unexpectedStatus(let status) where (300..<400).contains(status): .configuration
        case .unexpectedStatus(let status) where (400..<500).contains(status) && status != 408: .refusal
        case .invalidArgument: .refusal  // the body could not be encoded: it never will be
        case .partialUpload(_, _, let then): then.map(kind(of:)) ?? .transient
        default: .transient
        }
    }

    /// `upload` was accepted whole.
    private mutating func accept(_ upload: Upload, into resolution: inout Resolution) {
        resolution.removed += upload.count
        if case .events(let events) = upload { resolution.eventsDelivered += events.count }
        consecutiveFailures = 0
        shrinkSuspect(by: upload.count)
    }

    /// Removes `count` answered items from the front; those in `refused` are set aside.
    private mutating func take(_ count: Int, refused: [CommandRefusal], into resolution: inout Resolution) {
        let reasons = Dictionary(refused.map { ($0.index, $0.reason) }, uniquingKeysWith: { first, _ in first })
        for index in 0..<count {
            let item = waiting.removeFirst()
            if let reason = reasons[index] {
                resolution.setAside.append((item, reason))
            } else if case .event = item {
                resolution.eventsDelivered += 1
            }
        }
        resolution.removed += count
        if count > 0 { consecutiveFailures = 0 }
        shrinkSuspect(by: count)
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
            resolution.setAside.append((waiting.removeFirst(), error.description))
            resolution.removed += 1
            shrinkSuspect(by: 1)
            // Found: the rest of the refused batch goes out whole, searched only if refused too.
            if suspect > 0 { probe = suspect }
        case .refusal:
            suspect = max(suspect, count)
            probe = max(1, count / 2)
        case .transient:
            consecutiveFailures += 1
            var delay = policy.delay(afterFailures: consecutiveFailures, random: &random)
            if let asked = error.retryAfter, asked > delay { delay = policy.delay(retryAfter: asked, random: &random) }
            resolution.retryDelay = delay
        }
    }

    /// Lets uploads go out again after a configuration error stopped them; returns that error, or
    /// `nil` if they were not stopped.
    mutating func resume() -> SegmentsError? {
        defer { pausedBy = nil }
        return pausedBy
    }

    private mutating func shrinkSuspect(by count: Int) {
        suspect = max(0, suspect - count)
        if suspect == 0 { probe = 0 }
    }
}
