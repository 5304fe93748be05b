import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import RealtimeSegmentsTesting

/// The process the `crash` scenario kills: a client with the event journal on, on a state
/// directory it shares with the runs before and after it, tracking numbered events at a set rate
/// against a mock server over HTTP, and printing after each ``SegmentsClient/flushJournal()`` the
/// highest number it made durable. Run by `segments-bench`'s hidden `crash-child` subcommand.
///
/// Output, one line each, flushed at once: `cookie <cookie>` at start and before the events of
/// each new customer (see ``eventsPerCustomer``), `durable <n>` after each
/// flush (every event numbered from ``Options/first`` through `n` is durable), and with
/// ``Options/drain`` `drained` once the replayed events were uploaded and the client stopped.
public enum CrashChild {
    /// What the child does.
    public struct Options: Sendable {
        public var baseURL: String
        public var projectToken: String
        public var apiKey: String
        public var stateDirectory: String
        /// The number of the first event this run tracks (its property `seq`).
        public var first: Int
        /// Events per second.
        public var rate: Double
        /// Milliseconds between `flushJournal()` calls.
        public var flushMilliseconds: Int
        /// Milliseconds between uploads (``FlushingMode/periodic(_:)``), or 0 to upload as soon as
        /// events are tracked: with a period, a kill finds durable events not yet uploaded, which
        /// only the journal's replay can save.
        public var uploadMilliseconds: Int
        /// Track nothing: upload what the journal replays, stop cleanly, print `drained`, exit.
        public var drain: Bool

        public init(
            baseURL: String, projectToken: String, apiKey: String, stateDirectory: String, first: Int, rate: Double,
            flushMilliseconds: Int, uploadMilliseconds: Int = 0, drain: Bool
        ) {
            self.baseURL = baseURL
            self.projectToken = projectToken
            self.apiKey = apiKey
            self.stateDirectory = stateDirectory
            self.first = first
            self.rate = rate
            self.flushMilliseconds = flushMilliseconds
            self.uploadMilliseconds = uploadMilliseconds
            self.drain = drain
        }
    }

    /// Events tracked for one customer before the child switches to a new one.
    static let eventsPerCustomer = 400

    /// The property that carries each event's number.
    public static let sequenceProperty = "seq"

    /// Runs until killed (or, with ``Options/drain``, until drained). Call from a plain thread.
    public static func run(_ options: Options) throws -> Never {
        let transport = HTTPSegmentsTransport(configuration: try HTTPTransportConfiguration(baseURL: options.baseURL))
        var configuration = SegmentsConfiguration(
            projectToken: options.projectToken, authorization: .token(options.apiKey), transport: transport)
        configuration.stateDirectory = URL(fileURLWithPath: options.stateDirectory, isDirectory: true)
        configuration.journal = JournalConfiguration(durability: .everyCommit)
        if options.uploadMilliseconds > 0 { configuration.flushingMode = .periodic(.milliseconds(options.uploadMilliseconds)) }
        configuration.logger.logLevel = .error
        let client = SegmentsClient(configuration: configuration)
        client.start()
        say("cookie \(client.customerIds["cookie"] ?? "")")
        if options.drain {
            client.flush()
            // Not idle in time: the harness counts the drain as failed, and what stayed in the
            // journal is then not mistaken for events the engine lost.
            guard client.waitUntilIdle(timeout: .seconds(120)) else {
                client.stop()
                exit(1)
            }
            client.stop()
            say("drained")
            exit(0)
        }
        let period = Double(max(1, options.flushMilliseconds)) / 1000
        var quota = PeriodQuota(rate: options.rate, period: period)
        var next = options.first
        var deadline = Date()
        while true {
            let count = quota.next()
            for _ in 0..<count {
                if (next - options.first) % eventsPerCustomer == 0 {
                    // The mock keeps the last 1,000 events of each customer: a new one (a new
                    // cookie) at start and every few hundred events keeps every event countable,
                    // replayed copies included.
                    client.anonymize()
                    say("cookie \(client.customerIds["cookie"] ?? "")")
                }
                try client.trackEvent(eventType: "crash_test", properties: [sequenceProperty: .number(Double(next))])
                next += 1
            }
            if count > 0 {
                let durable = next - 1
                try runBlocking { try await client.flushJournal() }
                say("durable \(durable)")
            }
            deadline += period
            let wait = deadline.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
    }

    private static func say(_ line: String) {
        print(line)
        fflush(nil)  // nil: every output stream (naming `stdout` is not concurrency-safe)
    }
}
