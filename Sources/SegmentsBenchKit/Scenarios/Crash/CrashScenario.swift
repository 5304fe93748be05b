import Foundation
import RealtimeSegments
import SegmentsMockServer

/// `crash`: a child `segments-bench crash-child` process tracks numbered events with the event
/// journal on, against a mock server over HTTP, and is killed with `SIGKILL` at seeded random
/// moments, then started again on the same state directory; a last child uploads what the journal
/// replays and stops cleanly. Every event a child reported durable (`flushJournal()` returned
/// after it) must reach the server.
public struct CrashScenario: Scenario {
    /// The children's executable, `nil` for this process's own (which has `crash-child`).
    private let childExecutable: String?

    public init() { childExecutable = nil }

    /// A scenario whose children run `childExecutable` (tests stand a script in for `crash-child`).
    init(childExecutable: String) { self.childExecutable = childExecutable }

    public let name = "crash"
    public let honouredOptions: Set<BenchOptionName> = [.seed, .rate]
    public let needsSegmentsClient: String? = "the write-ahead journal of SegmentsClient, in a child segments-bench process"
    public let needsMockIntrospection: String? = "the in-process mock backend's record of the events it accepted"
    public let simulates = "a process with the event journal on, killed with SIGKILL at random moments (20 kills with --quick, 100 without) while it tracks and uploads (at once, or every 250 ms or 1 s, drawn per run), restarted on the same state directory each time"
    public let measures = "events reported durable by flushJournal() that never reached the server (must be 0), events received more than once (at least once delivery: reported), segment files left after a clean stop"

    /// Milliseconds a child runs before it is killed: drawn uniformly from this range.
    static let lifetimeMilliseconds = 150...700
    /// How long a child may take to say it started.
    static let startTimeoutSeconds = 30.0
    /// Event numbers of kill `k` start at `k × stride`.
    static let stride = 10_000_000
    /// The children's upload periods (0: upload at once), one drawn per child.
    static let uploadPeriodsMilliseconds = [0, 250, 1_000]

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let kills = options.quick ? 20 : 100
        let rate = options.rate ?? 2_000
        let project = MockProject(token: "crash-project", apiKey: "crash-key")
        let backend = SegmentsBackend(projects: [project])
        // Every numbered event stored, whatever its customer: the per-customer lists keep only the
        // last events of each.
        backend.countDistinctEvents(byNumberProperty: CrashChild.sequenceProperty)
        let server = SegmentsMockHTTPServer(backend: backend)
        try runBlocking { try await server.start() }
        defer { try? runBlocking { try await server.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("segments-bench-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = try childExecutable ?? Self.ownExecutable()
        func arguments(first: Int, drain: Bool, uploadMilliseconds: Int = 0) -> [String] {
            ["crash-child", "--url", server.baseURL.absoluteString, "--token", project.token, "--key", project.apiKey,
             "--state-dir", directory.path, "--first", "\(first)", "--rate", "\(rate)", "--upload-ms", "\(uploadMilliseconds)"]
                + (drain ? ["--drain"] : [])
        }

        var random = SplitMix64(seed: options.seed)
        var durable: [ClosedRange<Int>] = []
        var cookies: Set<String> = []
        // Each customer a child switched to, and the numbers it tracked under that customer: a
        // child says a cookie after its start (the customer it restored), then one per block.
        var numbersOfCustomer: [String: Range<Int>] = [:]
        var killedBeforeFirstFlush = 0
        var endedOnTheirOwn: [String] = []
        for kill in 0..<kills {
            if kill % 10 == 0 { progress.say("kill \(kill + 1) of \(kills)") }
            let first = kill * Self.stride
            // Uploads at once, or every 250 ms or 1 s: with a period, most of what a kill interrupts
            // is durable but not yet uploaded, and only the journal's replay delivers it.
            let upload = Self.uploadPeriodsMilliseconds[Int(random.next() % UInt64(Self.uploadPeriodsMilliseconds.count))]
            let child = try CrashChildProcess(
                executable: executable, arguments: arguments(first: first, drain: false, uploadMilliseconds: upload))
            // The lifetime counts from the child's start, however long a busy machine takes to
            // launch it; one that never says it started ends the run (the first) or is killed.
            if !child.waitUntilStarted(seconds: Self.startTimeoutSeconds), kill == 0 {
                child.kill()
                throw CrashScenarioError.childDidNotStart(executable)
            }
            usleep(UInt32(Int.random(in: Self.lifetimeMilliseconds, using: &random) * 1_000))
            let ending = child.kill()
            let said = child.state
            if ending != .killed { endedOnTheirOwn.append("child \(kill + 1) \(ending)") }

            if kill == 0, said.cookies.isEmpty {
                throw CrashScenarioError.childDidNotStart(executable)
            }
            cookies.formUnion(said.cookies)
            for (block, cookie) in said.cookies.dropFirst().enumerated() {
                let start = first + block * CrashChild.eventsPerCustomer
                numbersOfCustomer[cookie] = start..<(start + CrashChild.eventsPerCustomer)
            }
            if let last = said.lastDurable, last >= first {
                durable.append(first...last)
            } else {
                killedBeforeFirstFlush += 1
            }
        }

        progress.say("a last run uploads what the journal replays, and stops cleanly")
        let drainer = try CrashChildProcess(executable: executable, arguments: arguments(first: kills * Self.stride, drain: true))
        let status = drainer.waitForExit(seconds: 180)
        let drained = drainer.state
        cookies.formUnion(drained.cookies)
        let journalDirectory = directory.appendingPathComponent("events-journal")
        let filesLeft = ((try? FileManager.default.contentsOfDirectory(atPath: journalDirectory.path)) ?? [])
            .filter { $0.hasSuffix(".journal") }.count

        let received = backend.distinctEventValues
        // A replayed event keeps the customer it was tracked for: one stored under another
        // customer (the one the restarted child began as, say) went to the wrong person.
        var underAnotherCustomer = 0
        for cookie in cookies {
            for event in backend.events(forCookie: cookie, projectToken: project.token) {
                guard case .number(let number) = event.properties[CrashChild.sequenceProperty] else { continue }
                if !(numbersOfCustomer[cookie]?.contains(Int(number)) ?? false) { underAnotherCustomer += 1 }
            }
        }
        let durableCount = durable.reduce(0) { $0 + $1.count }
        let lost = durable.reduce(0) { total, range in total + range.count { !received.contains(Double($0)) } }
        // Every event the children track is numbered: what was stored beyond one of each is a copy.
        let duplicates = backend.eventsAccepted - received.count
        var notes: [String] = []
        if status != 0 || !drained.drained {
            notes.append("The last (draining) child did not end cleanly (status \(status.map(String.init) ?? "killed after 180 s")).")
        }
        if !endedOnTheirOwn.isEmpty {
            notes.append("Children that ended before their SIGKILL: \(endedOnTheirOwn.prefix(5).joined(separator: "; "))\(endedOnTheirOwn.count > 5 ? "; …" : "").")
        }

        let figures = [
            Figure(name: "crash.kills", value: Double(kills - endedOnTheirOwn.count), unit: "count",
                   summary: "child processes killed with SIGKILL"),
            Figure(name: "crash.childrenEndedOnTheirOwn", value: Double(endedOnTheirOwn.count), unit: "count", gate: .zero,
                   summary: "children that ended before their SIGKILL (failed, or exited early): the kills they stood for checked nothing"),
            Figure(name: "crash.nothingDurable", value: durable.isEmpty ? 1 : 0, unit: "count", gate: .zero,
                   summary: "1 if no child reported an event durable: the run checked nothing"),

            Figure(name: "crash.durableEvents", value: Double(durableCount), unit: "count",
                   summary: "events the children reported durable (flushJournal() returned after them)"),
            Figure(name: "crash.lostDurableEvents", value: Double(lost), unit: "count", gate: .zero,
                   summary: "events reported durable that never reached the server"),
            Figure(name: "crash.eventsUnderAnotherCustomer", value: Double(underAnotherCustomer), unit: "count", gate: .zero,
                   summary: "events the server stored for another customer than the one they were tracked for (a replay must keep each event's customer)"),
            Figure(name: "crash.duplicateEvents", value: Double(duplicates), unit: "count",
                   summary: "extra copies the server received (at least once: an upload answered but not yet acknowledged in the journal when killed)"),
            Figure(name: "crash.eventsReceived", value: Double(received.count), unit: "count",
                   summary: "distinct events the server received (durable ones and others tracked before a kill)"),
            Figure(name: "crash.killsBeforeFirstFlush", value: Double(killedBeforeFirstFlush), unit: "count",
                   summary: "children killed before their first flushJournal() returned"),
            Figure(name: "crash.drainFailed", value: status == 0 && drained.drained ? 0 : 1, unit: "count", gate: .zero,
                   summary: "1 if the last child did not upload and stop cleanly"),
            Figure(name: "crash.segmentFilesLeft", value: Double(filesLeft), unit: "count", gate: .zero,
                   summary: "journal segment files left after the last child's clean stop (every upload answered)"),
        ]
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["kills": "\(kills)", "rate": "\(rate)"]) { $1 },
            figures: figures, allocationsMeasured: false, notes: notes)
    }

    /// The running executable (`segments-bench`, or a package's harness built on SegmentsBenchCLI),
    /// which has the hidden `crash-child` subcommand.
    static func ownExecutable() throws -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        if let path = Bundle.main.executablePath { return path }
        throw CrashScenarioError.childDidNotStart(CommandLine.arguments.first ?? "?")
    }
}

/// Why the `crash` scenario could not run.
public enum CrashScenarioError: Error, CustomStringConvertible {
    /// The child never printed its cookie: the executable has no `crash-child` subcommand, or
    /// the client could not start.
    case childDidNotStart(String)

    public var description: String {
        switch self {
        case .childDidNotStart(let executable):
            "crash: the child process (\(executable) crash-child) did not start; run the scenario from segments-bench"
        }
    }
}
