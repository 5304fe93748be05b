import Dispatch

/// Messages to the engine thread other than the ordered ingestion items.
enum ControlMessage: Sendable {
    /// `getSegments` that missed the cache.
    case getSegments(category: SegmentCategory, force: Bool, completion: PullCompletion)
    /// Upload everything buffered now, and what is still in the ring below position `through`
    /// (every item claimed before the call) once drained.
    case flush(through: Int)
    /// ``SegmentsClient/flushJournal()``: answer once the ring has been drained up to `through`
    /// (a position: every item claimed before the call) and the journal holds it durably.
    case journalFlush(through: Int, completion: JournalFlushCompletion)
    /// Stop: final upload attempt, persist, end the thread.
    case stop
    /// A listener check or pull fetch finished.
    case fetchCompleted(FetchOutcome)
    /// An upload finished.
    case uploadCompleted(UploadOutcome)
    /// Signal `semaphore` once everything before it has been processed and timers re-evaluated:
    /// the messages posted before it, and the ring's items up to position `through` (what was
    /// claimed when it was posted), whose work (an upload, a check) has then been started.
    case barrier(DispatchSemaphore, through: Int)
    /// Run one step of a fetch or link on the engine thread (see ``EngineTaskExecutor``).
    case runJob(UnownedJob, on: EngineTaskExecutor)
}

/// Receives the result of a ``SegmentsClient/flushJournal()`` call, on the engine thread: it
/// must only resume a continuation.
typealias JournalFlushCompletion = @Sendable (Result<Void, SegmentsError>) -> Void

/// Receives the result of a `getSegments` call.
typealias PullCompletion = @Sendable (Result<[Segment], SegmentsError>) -> Void

/// Why a fetch ran.
enum FetchPurpose: Sendable {
    /// A listener check.
    case check
    /// A `getSegments` fetch.
    case pull
}

/// The result of a fetch task, back on the engine thread.
struct FetchOutcome: Sendable {
    var purpose: FetchPurpose
    /// The identity the fetch was made for.
    var identity: IdentitySnapshot
    /// Hard ids linked successfully before the fetch, if a link was made.
    var linked: [String: String]?
    /// Whether the fetch sent link-ids (whatever came of it).
    var linkAttempted: Bool
    var result: Result<SegmentsResponse, FetchFailure>
    /// The fetch's place in the order the engine launched its fetches: the pull cache keeps the
    /// answer to the latest request, whichever answer arrives last.
    var sequence: UInt64
}

/// Why a fetch produced no data.
enum FetchFailure: Error, Sendable {
    /// Link-ids failed; the fetch was not attempted.
    case link(SegmentsError)
    /// The fetch itself failed.
    case fetch(SegmentsError)
}

/// The result of an upload task (the upload in flight of the engine's ``UploadQueue``).
struct UploadOutcome: Sendable {
    /// How many of the uploads, from the first, the server accepted whole.
    var accepted: Int
    /// How the upload after those failed; `nil` if every upload was accepted. The uploads after
    /// a failed one are not sent.
    var error: SegmentsError?
}
