/// When the next upload of the ``UploadQueue`` may go out.
///
/// Rules:
/// - ``FlushingMode/immediate``: as soon as something waits (batched while an upload is in flight);
///   ``FlushingMode/periodic(_:)``: at each interval; ``FlushingMode/manual``: on a flush request.
///   A flush request lasts until the queue is empty with every item claimed in the ring before it
///   taken into the queue (and so sent);
/// - after a transient failure, not before the retry time the queue's backoff set;
/// - once the engine stops, at once whatever the mode, until an attempt started after stop fails:
///   that was the final one (the engine tells, ``markFinalAttemptFailed()``).
///
/// A pure value: it takes the time as an input and performs no I/O. Owned by ``EngineOwner``;
/// engine thread only.
struct UploadSchedule {
    let flushingMode: FlushingMode
    /// When the upload that failed may be retried, if one failed.
    private(set) var retryAt: SegmentsInstant?
    /// A flush was requested (or a periodic flush is due) and the queue has not emptied since.
    private(set) var flushRequested = false
    /// The ring position a flush request covers: every item claimed before the request. The
    /// request lasts until the engine has drained the ring up to here, since an item the request
    /// covers may still be in the ring when the engine takes the request.
    private(set) var flushThrough = 0
    /// When the next periodic flush is due (periodic mode, until stop).
    private(set) var nextPeriodicFlush: SegmentsInstant?
    /// An upload failed after stop: no more attempts are made.
    private(set) var finalAttemptFailed = false

    init(flushingMode: FlushingMode) {
        self.flushingMode = flushingMode
    }

    /// The engine starts at `now`: the first periodic flush is due one interval later.
    mutating func start(at now: SegmentsInstant) {
        if case .periodic(let interval) = flushingMode {
            nextPeriodicFlush = now + interval
        }
    }

    /// Everything queued, and everything claimed in the ring before ring position `through`, is to
    /// go out now (``SegmentsClient/flush()``).
    mutating func requestFlush(through position: Int) {
        flushRequested = true
        flushThrough = max(flushThrough, position)
    }

    /// The engine stops: no periodic flush any more; uploads go out at once (``mayStart(at:queue:drainedThrough:stopping:)``).
    mutating func stop() {
        nextPeriodicFlush = nil
    }

    /// Whether the next upload of `queue` may start at `now`, with the ring drained up to position
    /// `drainedThrough`; `stopping` once the engine stops.
    mutating func mayStart(at now: SegmentsInstant, queue: UploadQueue, drainedThrough: Int, stopping: Bool) -> Bool {
        if case .periodic(let interval) = flushingMode, let due = nextPeriodicFlush, now >= due {
            flushRequested = true
            nextPeriodicFlush = now + interval
        }
        guard !queue.isInFlight, !queue.isEmpty else {
            if queue.isEmpty, drainedThrough >= flushThrough { flushRequested = false }
            return false
        }
        if stopping { return !finalAttemptFailed }
        if let retryAt, now < retryAt { return false }
        return flushingMode == .immediate || flushRequested
    }

    /// An answer took items off the queue: the next upload need not wait for a retry time.
    mutating func uploadsAnswered() {
        retryAt = nil
    }

    /// A transient failure: the upload is retried at `instant`, not before.
    mutating func retry(at instant: SegmentsInstant) {
        retryAt = instant
    }

    /// The final attempt, made after stop, failed: no more attempts are made.
    mutating func markFinalAttemptFailed() {
        finalAttemptFailed = true
    }

    /// When the schedule next has something to do (a retry, a periodic flush), given whether
    /// uploads wait and none is in flight (`queueWaits`).
    func deadline(queueWaits: Bool) -> SegmentsInstant? {
        let retry = queueWaits ? retryAt : nil
        guard let retry else { return nextPeriodicFlush }
        guard let periodic = nextPeriodicFlush else { return retry }
        return min(retry, periodic)
    }
}
