import ArgumentParser
import SegmentsBenchKit

/// `segments-bench crash-child` (hidden): the process the `crash` scenario kills and restarts
/// (see ``CrashChild``). Not for people: it runs until killed.
struct CrashChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-child", abstract: "The crash scenario's child process (internal).", shouldDisplay: false)
    @Option(help: "The mock server's base URL.") var url: String
    @Option(help: "Project token.") var token: String
    @Option(help: "API key.") var key: String
    @Option(help: "State directory, shared with the runs before and after this one.") var stateDir: String
    @Option(parsing: .unconditional, help: "Number of the first event tracked.") var first: Int = 0
    @Option(parsing: .unconditional, help: "Events per second.") var rate: Double = 2_000
    @Option(parsing: .unconditional, help: "Milliseconds between flushJournal() calls.") var flushMs: Int = 10
    @Option(parsing: .unconditional, help: "Upload every this many milliseconds (periodic flushing); 0 uploads at once.") var uploadMs: Int = 0
    @Flag(help: "Upload what the journal replays, stop cleanly and exit.") var drain = false

    /// The ranges `run crash` gives it: anything else is a usage error, not a trap in its pacing.
    func validate() throws {
        guard (0.001...1_000_000_000).contains(rate) else { throw ValidationError("--rate must be 0.001 to 1000000000 per second, not \(rate)") }
        guard (1...60_000).contains(flushMs) else { throw ValidationError("--flush-ms must be 1 to 60000, not \(flushMs)") }
        guard (0...60_000).contains(uploadMs) else { throw ValidationError("--upload-ms must be 0 to 60000, not \(uploadMs)") }
        guard first >= 0 else { throw ValidationError("--first must be 0 or more, not \(first)") }
    }

    func run() throws {
        try CrashChild.run(CrashChild.Options(
            baseURL: url, projectToken: token, apiKey: key, stateDirectory: stateDir, first: first, rate: rate,
            flushMilliseconds: flushMs, uploadMilliseconds: uploadMs, drain: drain))
    }
}
