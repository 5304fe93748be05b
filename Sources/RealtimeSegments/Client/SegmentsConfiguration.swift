import Foundation
import Logging

/// Everything a ``SegmentsClient`` needs: who it talks to, how it times checks, where it keeps state.
///
/// Only the project token and the transport are required; every other setting has the reference
/// SDKs' default (5 s debounce, 5 s cache TTL, immediate flushing) plus a 30 s max-wait.
public struct SegmentsConfiguration: Sendable {
    /// The project token, sent in every URL path.
    public var projectToken: String
    /// The `authorization` header (`Token …` or `Bearer …`), or `nil` for none.
    public var authorization: SegmentsAuthorization?
    /// The backend connection.
    public var transport: any SegmentsTransport
    /// Quiet time after the last reload request before a listener check starts (default 5 s).
    public var debounce: Duration = .seconds(5)
    /// Longest time a steady stream of requests can postpone a check (default 30 s).
    public var maxWait: Duration = .seconds(30)
    /// How long `getSegments` serves from its cache (default 5 s), time asleep included
    /// (``SegmentsClock/continuousNow()``).
    public var cacheTTL: Duration = .seconds(5)
    /// When tracked events are uploaded (default ``FlushingMode/immediate``).
    public var flushingMode: FlushingMode = .immediate
    /// Where the cookie, customer ids, last known segments and unsent events are kept across
    /// restarts; `nil` keeps everything in memory. It belongs to one project: the state file names
    /// the ``projectToken`` of the client that wrote it, and a client of another project leaves the
    /// directory alone (and keeps its own state in memory, with a `Segments:` error line). So does
    /// a client that cannot read the state file there (its permissions, an I/O error, a directory
    /// in its place), leaving it for a start that can; a file it reads but cannot use is moved
    /// aside to `segments-state.json.corrupt-…`, with a warning.
    public var stateDirectory: URL?
    /// The write-ahead event journal in ``stateDirectory`` (see ``JournalConfiguration``), or
    /// `nil` (the default) for none: events then reach disk only at ``SegmentsClient/stop(timeout:)``
    /// or while uploads fail, and a crash loses those not yet uploaded. Ignored, with a `Segments:`
    /// warning, without a ``stateDirectory``.
    public var journal: JournalConfiguration?
    /// How callbacks of one check are invoked (default ``DeliveryMode/ordered``).
    public var deliveryMode: DeliveryMode = .ordered
    /// How long a category's delivery thread keeps looking for the category's next delivery after
    /// finishing one, before it sleeps (default zero: it sleeps at once). With a window, a check
    /// also wakes the delivery thread of each category that has callbacks as its fetch starts, and
    /// that thread looks for the check's delivery for up to the window from then (a thread still
    /// looking after the last delivery also looks on for up to the window from the fetch's start).
    /// A delivery that arrives while its thread looks starts without a thread wake-up; the price
    /// is up to this much CPU time per category after the start of every check and after every
    /// delivery (``SegmentsStatistics/deliverySpinNanoseconds`` counts it). An idle or stopped
    /// client never spins. Leave it at zero on battery-powered devices; on a server, about the
    /// segments backend's response time. Values outside 0...10 ms are brought into range with a
    /// `Segments:` warning.
    public var deliverySpinWindow: Duration = .zero
    /// How the engine thread competes with the app's threads for a core
    /// (default ``EngineScheduling/yieldsToApp``).
    public var engineScheduling: EngineScheduling = .yieldsToApp
    /// The shared engine threads the client runs on, or `nil` (the default) for a thread of its
    /// own. A grouped client is pinned to one of the group's threads for its life and behaves as
    /// on its own thread; ``engineScheduling`` is then the group's (see ``SegmentsEngineGroup``).
    public var engineGroup: SegmentsEngineGroup?
    /// Where `Segments:` lines go.
    public var logger: Logger = Logger(label: "RealtimeSegments")
    /// The time source (inject RealtimeSegmentsTesting's `ManualClock` in tests).
    public var clock: any SegmentsClock = SystemClock()
    /// Events the ingestion ring holds before producers are slowed (rounded up to a power of two).
    ///
    /// The ring also carries customer changes (`identifyCustomer`, `anonymize`). Each item takes a
    /// 64-byte cache line, so the default, 4,096, is 256 KiB: small enough to stay in a core's
    /// cache. Values outside
    /// 1...1,048,576 are brought into range with a `Segments:` warning.
    /// While events flow the engine looks at the ring every millisecond, and a producer that finds
    /// it full wakes a lingering or sleeping engine at once; an engine busy with its turn, or
    /// waiting for a core, looks later. Producers wait when more items arrive than the ring holds
    /// before the engine takes them: raise this for an app that tracks bursts of thousands of
    /// events at once.
    public var ingestCapacity: Int = 4_096
    /// Most events sent in one upload.
    public var maxUploadBatchSize: Int = 500
    /// Backoff between retries of a failed upload: doubles from `initial` up to `maximum`. Uploads
    /// stopped by a wrong key, project or base URL (401, 403, 404, 3xx) are retried after `maximum`,
    /// then at doubling intervals up to an hour (each spread above by `jitter`), and resume when a
    /// fetch from the same server succeeds (once per such interval at most, before its jitter).
    public var uploadRetry: RetryPolicy = RetryPolicy(initial: .seconds(1), maximum: .seconds(60))
    /// How often `getSegments` refetches when the customer changes mid-flight before failing.
    public var maxPullRefetches: Int = 3
    /// Qualified segments (SPEC §9): API key, segments to check, cache size and lifetime. `nil`
    /// (the default) makes every qualified-segments fetch fail with "apiKey/apiHost not defined".
    public var qualifiedSegments: QualifiedSegmentsConfiguration?
    /// Runs between an identity change's publication and its entry into the ingestion ring, on the
    /// calling thread (`identifyCustomer`, `anonymize`): lets a test hold a call there to force
    /// two calls' interleaving. Not part of the API; `nil` outside tests.
    var identityPublishedForTesting: (@Sendable () -> Void)?
    /// Runs inside an identity change, between its two publications (the generation that results
    /// and deliveries are checked against, and the snapshot `customerIds` reads), on the calling
    /// thread: lets a test hold a change there. Not part of the API; `nil` outside tests.
    var identityHalfPublishedForTesting: (@Sendable () -> Void)?
    /// Runs in `start()` once it has taken the client's initial state, before the client counts as
    /// started: lets a test hold a start there. Not part of the API; `nil` outside tests.
    var startTookInitialForTesting: (@Sendable () -> Void)?
    /// Runs as `start()` begins, before it looks at the client's state: lets a test know a start
    /// is under way. Not part of the API; `nil` outside tests.
    var startCalledForTesting: (@Sendable () -> Void)?
    /// Runs on the reporting persistence queue before each batch of visitor files is written:
    /// lets a test hold that queue. Not part of the API; `nil` outside tests.
    var reportingWriteForTesting: (@Sendable () -> Void)?
    /// Runs inside a reporting setter, after its change and under the visitor's lock: lets a test
    /// hold one setter while another tries the same visitor. Not part of the API; `nil` outside tests.
    var reportingChangedForTesting: (@Sendable () -> Void)?
    /// Runs in `stop()` between raising the customer generation and posting the stop to the
    /// engine: lets a test hold a stop there. Not part of the API; `nil` outside tests.
    var stopGenerationRaisedForTesting: (@Sendable () -> Void)?
    /// Runs inside a reporting restore, once it has decided whether to tidy the directory and
    /// before the files are read: lets a test hold a restore in progress. Not part of the API;
    /// `nil` outside tests.
    var reportingRestoreForTesting: (@Sendable () -> Void)?
    /// Runs on the engine's thread in each turn, after it drained the ring and before it takes the
    /// control messages: lets a test hold a turn there. Not part of the API; `nil` outside tests.
    var turnDrainedForTesting: (@Sendable () -> Void)?
    /// Runs in `waitUntilIdle` each time a barrier it posted has been answered, before it looks at
    /// the outstanding work: lets a test hold that look. Not part of the API; `nil` outside tests.
    var settleBarrierAnsweredForTesting: (@Sendable () -> Void)?
    /// Where the engine stamps the stages of each check's notification (``CheckTimeline``), for
    /// `segments-bench`; `nil` (the default) stamps nothing.
    @_spi(Benchmarks)
    public var checkTimeline: CheckTimeline?

    /// Creates a configuration with the defaults.
    public init(projectToken: String, authorization: SegmentsAuthorization? = nil, transport: any SegmentsTransport) {
        self.projectToken = projectToken
        self.authorization = authorization
        self.transport = transport
    }

    var requestContext: SegmentsRequestContext {
        SegmentsRequestContext(projectToken: projectToken, authorization: authorization)
    }
}

/// When tracked events are uploaded. An upload that succeeds is reload trigger 4.
public enum FlushingMode: Sendable, Hashable {
    /// As soon as they are tracked (batched while an upload is in flight).
    case immediate
    /// Every `interval`.
    case periodic(Duration)
    /// Only on ``SegmentsClient/flush()`` (and a last attempt at ``SegmentsClient/stop(timeout:)``).
    case manual
}

/// How the callbacks of one category are invoked for one check.
public enum DeliveryMode: Sendable, Hashable {
    /// One delivery thread per category; callbacks run one after another in registration order.
    case ordered
    /// The category's callbacks are split across all cores, with no order among them: for
    /// categories with thousands of callbacks.
    ///
    /// The delivery thread and one helper thread per other core, at most 64 (`Segments.helper`, shared by
    /// every client in the process and started with the first parallel delivery) take shares of
    /// 256 registrations until none are left, so a helper that starts late or a callback that
    /// blocks holds back only the rest of its own share. Each core takes its shares from its own
    /// end of the list, so it mostly runs the callbacks it ran last time. The helpers are woken
    /// when the engine schedules a delivery and spin (yielding the core) up to 250 µs for it to
    /// start, then park again. One category's delivery uses the helpers at a time; another that
    /// finds them busy runs on its delivery thread alone. On one core, or with fewer than 512
    /// callbacks in the category, the callbacks run in order on the delivery thread.
    case parallel
}

/// How the engine thread competes with the app's threads for a core.
///
/// The engine's work (stamping and uploading events, debounced checks, diffs) has deadlines of
/// milliseconds to seconds, while the app's threads call `trackEvent` from code that is waiting for
/// the call to return.
public enum EngineScheduling: Sendable, Hashable {
    /// The engine thread does not preempt a running thread when it wakes: when every core is busy it
    /// waits for the running thread's time slice to end (milliseconds), so waking up to drain events
    /// or handle a fetch does not interrupt an app thread in the middle of a call (the end of a time
    /// slice still can, as for any thread). On Linux the thread runs under `SCHED_BATCH` (same share
    /// of the CPU, no wake-up preemption); on Apple platforms at `.utility` quality of service.
    /// It applies to the engine thread alone, which never runs callbacks (of code outside the
    /// engine it runs only the configured clock, the log handler, and the fetches and links of a
    /// transport that declares ``SegmentsTransport/neverBlocks``): the threads that run callbacks
    /// keep the default scheduling.
    case yieldsToApp
    /// The engine thread is scheduled like any other thread of the process: on waking it may preempt
    /// whichever thread is running.
    case standard
}

/// Exponential backoff with jitter: how long a failed upload waits before it is sent again.
public struct RetryPolicy: Sendable, Hashable {
    /// Delay before the first retry.
    public var initial: Duration
    /// Largest delay between retries (a server's `Retry-After` may ask for longer, and is honoured).
    public var maximum: Duration
    /// The fraction of each delay that is random, from 0 (none) to 1: a delay `d` becomes a value
    /// between `d × (1 − jitter)` and `d`, so that many clients failing together do not all retry
    /// at the same moment. A server's `Retry-After` of `r` (when longer) becomes a value between
    /// `r` and `r × (1 + jitter)`: never earlier than the server asked.
    public var jitter: Double

    /// Creates a policy.
    public init(initial: Duration, maximum: Duration, jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay after `failures` consecutive failures (1 → `initial`), before jitter.
    func delay(afterFailures failures: Int) -> Duration {
        // The client's policy starts at 10 ms or more (``SegmentsConfiguration/withinLimits()``).
        var delay = initial
        for _ in 1..<max(1, failures) {
            // Compared before doubling, so a very large maximum cannot make the delay overflow.
            if delay >= maximum / 2 { return maximum }
            delay *= 2
        }
        return min(delay, maximum)
    }

    /// The delay after `failures` consecutive failures, with ``jitter`` drawn from `random`.
    func delay(afterFailures failures: Int, random: inout some RandomNumberGenerator) -> Duration {
        let full = delay(afterFailures: failures)
        let fraction = min(max(jitter, 0), 1)
        guard fraction > 0 else { return full }
        return full * (1 - fraction * Double.random(in: 0..<1, using: &random))
    }

    /// The delay after a server asked for `retryAfter` (when that is longer than the backoff):
    /// at least `retryAfter`, spread by ``jitter`` above it.
    func delay(retryAfter: Duration, random: inout some RandomNumberGenerator) -> Duration {
        let fraction = min(max(jitter, 0), 1)
        guard fraction > 0 else { return retryAfter }
        return retryAfter * (1 + fraction * Double.random(in: 0..<1, using: &random))
    }
}
