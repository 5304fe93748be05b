import ArgumentParser
import Foundation
import SegmentsBenchKit

/// `segments-bench`: the benchmark and load-testing harness of RealtimeSegments.
struct SegmentsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segments-bench",
        abstract: "Benchmark and load-test the RealtimeSegments engine against an in-process mock segments server.",
        discussion: "With no subcommand, runs the default suite (about four to five minutes on 2 cores) and writes Reports/latest/.",
        version: ToolVersion.current,
        subcommands: [SuiteCommand.self, ListCommand.self, RunCommand.self, CheckCommand.self, BaselineCommand.self,
                      CICommand.self, ServeCommand.self, CompareCommand.self, CalibrateCommand.self, CostRegionCommand.self,
                      MergeCommand.self, ExportCommand.self, CrashChildCommand.self],
        defaultSubcommand: SuiteCommand.self)
}

/// Options shared by the commands that run scenarios. The numbers take the next argument whatever
/// it starts with, so that `--producers -1` is refused for its value, not as a missing one.
struct LoadOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Callbacks to register: fanout-sweep and peers run that N alone instead of their sweep; qualified takes it as its number of users.")
    var callbacks: Int?
    @Option(parsing: .unconditional, help: "Producer threads.") var producers: Int?
    @Option(parsing: .unconditional, help: "Target events per second per producer (fleet: across the whole fleet); default: each scenario's own (tracking-storm: flat out).") var rate: Double?
    @Option(parsing: .unconditional, help: "Seconds of load.") var duration: Double?
    @Option(name: .customLong("switch-rate"), parsing: .unconditional, help: "Customer switches per second.") var switchRate: Double?
    @Option(help: "Engine transport: memory (isolates the engine) or http (loopback) (default: memory).")
    var transport: BenchOptions.Transport?
    @Option(parsing: .unconditional, help: "Engine debounce in seconds.") var debounce: Double?
    @Option(parsing: .unconditional, help: "Seed of every random choice (default: 1).") var seed: UInt64?
    @Option(parsing: .unconditional, help: "Simulated devices (fleet).") var devices: Int?
    @Option(help: "Target rate over time instead of --rate and --duration: duration:target pairs, ramping linearly (10s:2000,30s:2000,10s:0).")
    var stages: String?
    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "A limit the run must meet (repeatable), k6-style: a latency's 'p99(fleet.change-to-callback)<500ms' (pN, med, min, max, mean; under 60 s) or a figure's 'value(pull.requestsPerMiss)<1' (<, <=, >, >=). The name is the .hgrm file's or the figure's in the report; a one-scenario run may leave out the scenario. A missed limit exits 2, as does one not measured or a percentile with too few samples (1,000 for p99.9).",
        valueName: "limit"))
    var thresholds: [String] = []
    @Option(name: .customLong("fetch-delay-ms"), parsing: .unconditional, help: "Milliseconds the in-process mock waits before answering a segments fetch (fleet, default 20; fanout-sweep's sparse checks, default 1).")
    var fetchDelayMs: Double?
    @Option(name: .customLong("spin-window-ms"), parsing: .unconditional, help: "Milliseconds of the client's delivery spin window in the runs with one (fanout-sweep, peers; more than 0, at most 10; default: 5).")
    var spinWindowMs: Double?
    @Flag(help: "Shorter runs (what the CI gate uses).") var quick = false
    @Option(help: ArgumentHelp(
        "Drive this segments server over HTTP instead of the in-process mock (only scenarios that need nothing of the mock run).",
        valueName: "http(s)://host:port"))
    var target: String?
    @Option(help: "The target's project token (with --target).") var projectToken: String?
    @Option(help: ArgumentHelp("How the client authenticates to the target (with --target).", valueName: "token:KEY|bearer:TOKEN|basic:ID:SECRET"))
    var authorization: String?
    @Flag(help: "Allow a --target that is not a loopback address (127.0.0.0/8, ::1, localhost).") var allowRemote = false

    /// Refuses a malformed `--stages`, `--stages` with `--rate` or `--duration`,
    /// a count, duration, rate or delay outside what a run can use (``limits``), a spin window
    /// outside (0, 10] ms, and a malformed or unconfirmed `--target` (usage errors, exit 64).
    func validate() throws {
        _ = try benchTarget()
        for (flag, value, range, unit) in limits {
            guard let value else { continue }
            // NaN fails `contains`, and so do the infinities: none of the ranges is open.
            guard range.contains(value) else {
                throw ValidationError("\(flag) must be \(Self.describe(range)) \(unit), not \(Self.format(value))")
            }
        }
        if fetchDelayMs != nil, target != nil {
            throw ValidationError("--fetch-delay-ms delays the in-process mock's answers; a --target answers as it does")
        }
        if let spinWindowMs, !(spinWindowMs > 0 && spinWindowMs <= 10) {
            throw ValidationError("--spin-window-ms must be more than 0 and at most 10 milliseconds (the engine's largest window), not \(spinWindowMs)")
        }
        if let stages {
            if rate != nil || duration != nil {
                throw ValidationError("--stages sets the rate and the duration; give --stages or --rate/--duration, not both")
            }
            do { _ = try LoadStages.parse(stages) } catch { throw ValidationError(error.description) }
        }
    }

    /// Each numeric option's usable range, with its unit: a run given a value outside it would
    /// trap converting it, wait forever, or measure something other than it reports.
    private var limits: [(flag: String, value: Double?, range: ClosedRange<Double>, unit: String)] {
        [
            ("--callbacks", callbacks.map(Double.init), 1...10_000_000, "callbacks"),
            ("--producers", producers.map(Double.init), 1...1_024, "threads"),
            ("--devices", devices.map(Double.init), 1...1_000_000, "devices"),
            ("--duration", duration, 0.001...2_592_000, "seconds (30 days)"),
            ("--rate", rate, 0.001...1_000_000_000, "per second"),
            ("--switch-rate", switchRate, 0.001...1_000_000, "switches per second"),
            ("--debounce", debounce, 0...86_400, "seconds"),
            ("--fetch-delay-ms", fetchDelayMs, 0...60_000, "milliseconds"),
        ]
    }

    private static func describe(_ range: ClosedRange<Double>) -> String {
        "\(format(range.lowerBound)) to \(format(range.upperBound))"
    }

    private static func format(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// The target the options name, checked; `nil` without `--target`.
    func benchTarget() throws -> BenchTarget? {
        guard let target else {
            if projectToken != nil || authorization != nil || allowRemote {
                throw ValidationError("--project-token, --authorization and --allow-remote go with --target")
            }
            return nil
        }
        if transport != nil {
            throw ValidationError("--transport chooses the in-process mock's way in; against --target the engine always uses HTTP")
        }
        guard let projectToken, let authorization else {
            throw ValidationError("--target needs --project-token and --authorization (token:KEY, bearer:TOKEN or basic:ID:SECRET)")
        }
        do {
            return try BenchTarget(url: target, projectToken: projectToken, authorization: authorization, allowRemote: allowRemote)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The options without the `--threshold` limits, which need the scenarios that run
    /// (``benchOptions(for:)``): for choosing those scenarios, not for running them.
    fileprivate func benchOptionsWithoutThresholds() throws -> BenchOptions {
        var options = BenchOptions()
        options.target = try benchTarget()
        options.callbacks = callbacks
        options.producers = producers
        options.rate = rate
        options.duration = duration
        options.switchRate = switchRate
        options.transport = transport ?? options.transport
        options.debounce = debounce
        options.seed = seed ?? options.seed
        options.quick = quick
        options.devices = devices
        options.fetchDelayMs = fetchDelayMs
        options.spinWindowMs = spinWindowMs
        options.engine = SegmentsBenchCLI.registry.engine
        options.stages = stages.flatMap { try? LoadStages.parse($0) }
        return options
    }

    /// The options, with the `--threshold` limits parsed for a run of `scenarios`.
    func benchOptions(for scenarios: [any Scenario]) throws -> BenchOptions {
        var options = try benchOptionsWithoutThresholds()
        options.thresholds = try parseThresholds(thresholds, for: scenarios, target: target)
        return options
    }

    /// The scenario options given on the command line (`--quick` is not one: every scenario takes it).
    var given: Set<BenchOptionName> {
        var given: Set<BenchOptionName> = []
        if callbacks != nil { given.insert(.callbacks) }
        if producers != nil { given.insert(.producers) }
        if rate != nil { given.insert(.rate) }
        if duration != nil { given.insert(.duration) }
        if switchRate != nil { given.insert(.switchRate) }
        if transport != nil { given.insert(.transport) }
        if debounce != nil { given.insert(.debounce) }
        if seed != nil { given.insert(.seed) }
        if devices != nil { given.insert(.devices) }
        if stages != nil { given.insert(.stages) }
        if !thresholds.isEmpty { given.insert(.threshold) }
        if fetchDelayMs != nil { given.insert(.fetchDelayMs) }
        if spinWindowMs != nil { given.insert(.spinWindowMs) }
        return given
    }

    /// Refuses an option that `scenario` does not honour (a usage error naming the option, the
    /// scenario and what it accepts), and a target it cannot run against (naming what it needs).
    func check(for scenario: any Scenario) throws {
        let options = try benchOptions(for: [scenario])
        if let refusal = scenario.refusal(of: options) { throw ValidationError(refusal) }
        let againstTarget = options.target != nil
        let refused = scenario.unhonoured(given, againstTarget: againstTarget)
        guard !refused.isEmpty else { return }
        let verb = refused.count == 1 ? "is not an option" : "are not options"
        throw ValidationError(
            "\(refused.flagList) \(verb) of scenario '\(scenario.name)'\(againstTarget ? " against --target" : ""), which ignores "
                + "\(refused.count == 1 ? "it" : "them"); \(scenario.name) accepts "
                + "\(scenario.honouredOptions(with: options).acceptedFlagList)")
    }

    /// Refuses an option that no scenario of `scenarios` honours.
    func check(forSuite scenarios: [any Scenario]) throws {
        let honoured = scenarios.reduce(into: Set<BenchOptionName>([.threshold])) { $0.formUnion($1.honouredOptions) }
        let refused = given.subtracting(honoured)
        guard !refused.isEmpty else { return }
        throw ValidationError(
            "no scenario of the suite honours \(refused.flagList); the suite's scenarios accept \(honoured.acceptedFlagList)")
    }
}

extension BenchOptions.Transport: ExpressibleByArgument {}

/// Output options.
struct OutputOptions: ParsableArguments {
    @Option(help: "Report directory.") var out: String = "Reports/latest"
    @Flag(help: "Print the report as one JSON document on standard output (progress stays on standard error).")
    var json = false
}

/// What ``runAndReport(_:options:out:printing:)`` prints on standard output.
enum ReportPrinting {
    /// The console summary and where the report is.
    case summary
    /// The report as JSON.
    case json
    /// Nothing: the caller prints (`ci --json` prints the report and the gate as one document).
    case nothing
}

/// Runs scenarios, writes the report, prints a summary (or the JSON).
/// Once the report is written, a scenario that failed ends the command with a harness error (70),
/// and a missed `--threshold` with the gate's regression status (2).
func runAndReport(_ scenarios: [any Scenario], options: BenchOptions, output: OutputOptions, metrics: RunMetrics? = nil) throws -> BenchReport {
    let report = try runAndReport(
        scenarios, options: options, out: output.out, printing: output.json ? .json : .summary, metrics: metrics)
    let failed = report.failedScenarios
    if !failed.isEmpty {
        FileHandle.standardError.write(Data(
            "harness error: \(failed.count == 1 ? "scenario" : "scenarios") \(failed.joined(separator: ", ")) failed (see the report's notes)\n".utf8))
        throw ExitCode(ExitStatus.harnessError.rawValue)
    }
    let missed = report.thresholdsFailed
    if missed > 0 {
        FileHandle.standardError.write(Data("\(missed) --threshold limit\(missed == 1 ? "" : "s") missed (see the report's notes)\n".utf8))
        throw ExitCode(ExitStatus.regression.rawValue)
    }
    return report
}

/// Runs scenarios, writes the report into `out`, prints as `printing` says; the scenarios publish
/// to `metrics` when given (`--metrics-port`).
func runAndReport(
    _ scenarios: [any Scenario], options: BenchOptions, out: String, printing: ReportPrinting, metrics: RunMetrics? = nil,
    onInterruption: (@Sendable (BenchReport, URL) -> Void)? = nil
) throws -> BenchReport {
    let command = SegmentsBenchCLI.recordedCommand(SegmentsBenchCLI.arguments)
    if !AllocationProbe.isAvailable {
        FileHandle.standardError.write(Data("note: \(AllocationProbe.unavailableNote)\n".utf8))
    }
    let directory = try reportDirectory(out)
    let suite = SuiteProgress()
    let started = Date()
    let writing = NSLock()
    let report = writingWhatFinishedOnSignal(
        suite: suite, directory: directory, started: started, command: command, writing: writing, afterWriting: onInterruption
    ) {
        SuiteRunner.run(
            scenarios, options: options, progress: Progress(enabled: true, metrics: metrics), command: command, suite: suite)
    }
    // `writing` is held (see writingWhatFinishedOnSignal): a signal now waits for this write,
    // then ends the process without a report of its own.
    let files: [URL]
    do {
        files = try ReportWriter(directory: directory).write(report)
        writing.unlock()
    } catch {
        writing.unlock()
        throw error
    }
    switch printing {
    case .summary:
        print(ConsoleSummary.render(report))
        print("Report: \(directory.appendingPathComponent("index.html").path) (\(files.count) files)")
    case .json:
        print(String(decoding: try ReportWriter.makeJSONEncoder().encode(report), as: UTF8.self))
    case .nothing:
        break
    }
    return report
}

/// The report directory `out`, made if missing and checked writable before anything runs, so a
/// run does not end in an error after its scenarios.
/// - Throws: a usage error naming `--out` when the directory cannot be made or written.
func reportDirectory(_ out: String) throws -> URL {
    guard !out.isEmpty else { throw ValidationError("--out is empty: name the report directory") }
    let directory = URL(fileURLWithPath: out, isDirectory: true)
    try makeWritableDirectory(directory, called: "the report directory", for: "--out \(out)")
    return directory
}

/// Makes `directory` if missing and checks it writable.
/// - Throws: a usage error, "`subject`: `name` cannot be made" or "… is not writable".
private func makeWritableDirectory(_ directory: URL, called name: String, for subject: String) throws {
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
        throw ValidationError("\(subject): \(name) cannot be made: \(describe(error))")
    }
    guard FileManager.default.isWritableFile(atPath: directory.path) else {
        throw ValidationError("\(subject): \(name) is not writable")
    }
}

/// Checks, before any run, that `path` (given as `option`) can become a file: not empty, not a
/// directory, in a directory that exists (made if missing) and is writable.
/// - Throws: a usage error naming the option.
func checkWritableFile(_ path: String, option: String) throws {
    guard !path.isEmpty else { throw ValidationError("\(option) is empty: name the file to write") }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        throw ValidationError("\(option) \(path) is a directory: name the file to write")
    }
    try makeWritableDirectory(URL(fileURLWithPath: path).deletingLastPathComponent(), called: "its directory", for: "\(option) \(path)")
}

/// The registry's scenarios that can run with `options` (against its target, on its engine), in
/// order, without those whose tools this machine lacks when `skippingMissingTools`; notes the
/// others on standard error.
/// - Throws: a usage error when none can.
func runnableSuite(options: BenchOptions, skippingMissingTools: Bool = false) throws -> [any Scenario] {
    var scenarios = SegmentsBenchCLI.registry.scenarios
    if skippingMissingTools {
        scenarios = scenarios.filter { scenario in
            guard let tool = scenario.missingTool else { return true }
            FileHandle.standardError.write(Data("note: skipping \(scenario.name): it needs \(tool), which this machine lacks\n".utf8))
            return false
        }
    }
    let runnable = scenarios.filter { $0.refusal(of: options) == nil }
    var conditions: [String] = []
    if let target = options.target { conditions.append("against --target \(target.description)") }
    if !options.engine.isDefault { conditions.append("on the engine '\(options.engine.name)'") }
    if let duration = options.duration { conditions.append("with --duration \(duration)") }
    guard !runnable.isEmpty else {
        throw ValidationError("no scenario of the suite runs \(conditions.joined(separator: " "))")
    }
    for scenario in scenarios {
        guard let refusal = scenario.refusal(of: options) else { continue }
        FileHandle.standardError.write(Data("note: skipping \(scenario.name): \(refusal)\n".utf8))
    }
    return runnable
}

struct SuiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "suite", abstract: "Run every scenario (the default).")
    @OptionGroup var load: LoadOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var metrics: MetricsOptions

    func run() throws {
        let scenarios = try runnableSuite(options: load.benchOptionsWithoutThresholds(), skippingMissingTools: true)
        try load.check(forSuite: scenarios)
        let options = try load.benchOptions(for: scenarios)
        _ = try metrics.serving { try runAndReport(scenarios, options: options, output: output, metrics: $0) }
    }
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the scenarios.")
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        if json {
            let entries = SegmentsBenchCLI.registry.scenarios.map { scenario -> [String: Any] in
                ["name": scenario.name, "simulates": scenario.simulates, "measures": scenario.measures,
                 "options": scenario.honouredOptions(with: BenchOptions()).sorted().map(\.flag),
                 "target": scenario.needsMockIntrospection.map { "needs \($0)" } ?? "runs against --target",
                 "engine": scenario.needsSegmentsClient.map { "needs SegmentsClient's \($0)" } ?? "any BenchEngine"]
            }
            print(String(decoding: try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
            return
        }
        for scenario in SegmentsBenchCLI.registry.scenarios {
            print("\(scenario.name)\n  simulates: \(scenario.simulates)\n  measures:  \(scenario.measures)\n  options:   \(scenario.honouredOptions(with: BenchOptions()).acceptedFlagList)")
            print("  target:    \(scenario.needsMockIntrospection.map { "refused: it needs \($0)" } ?? "runs against --target")")
            print("  engine:    \(scenario.needsSegmentsClient.map { "SegmentsClient only: it needs its \($0)" } ?? "any BenchEngine")")
        }
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run one scenario.")
    @Argument(help: "Scenario name (see `segments-bench list`).") var scenario: String
    @OptionGroup var load: LoadOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var metrics: MetricsOptions

    /// Refuses an unknown scenario and options it does not honour while parsing, so the usage
    /// printed with the error is this command's.
    func validate() throws {
        try load.check(for: try found())
    }

    func run() throws {
        let found = try found()
        let options = try load.benchOptions(for: [found])
        _ = try metrics.serving { try runAndReport([found], options: options, output: output, metrics: $0) }
    }

    private func found() throws -> any Scenario {
        let registry = SegmentsBenchCLI.registry
        guard let found = registry.named(scenario) else {
            throw ValidationError("unknown scenario '\(scenario)'; known: \(registry.names.joined(separator: ", "))")
        }
        return found
    }
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Compare a report with a baseline; write gate.json, gate-junit.xml and gate-summary.md next to the report.",
        discussion: ExitStatus.helpText)
    @Option(help: "Baseline file.") var baseline: String = Self.defaultBaseline
    @Flag(help: "Compare with no baseline: judge only the report's own rules (correctness counters, bounds) and --threshold limits, as for a merged report of runs against a --target.")
    var noBaseline = false
    @Option(help: "Report to check: its report.json, or the report's directory.") var report: String = "Reports/latest/report.json"
    @Option(help: "Directory for the verdict files (default: the report's directory).") var out: String?
    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "A limit the report must also meet (repeatable), as `run --threshold` takes it, such as 'p99(fleet.change-to-callback)<500ms' on a merged report; the report file is not changed. A missed one fails the gate (exit 2); one naming a scenario the report lacks is a harness error (70).",
        valueName: "limit"))
    var thresholds: [String] = []
    @Flag(help: "Print the rows as JSON instead of the table.") var json = false

    private static let defaultBaseline = "Reports/baseline.json"

    /// The path the verdict records for the baseline.
    private var baselinePath: String { noBaseline ? "none" : baseline }

    func validate() throws {
        if noBaseline && baseline != Self.defaultBaseline {
            throw ValidationError("--no-baseline compares with no baseline; give --baseline or --no-baseline, not both")
        }
    }

    func run() throws {
        let reportURL = ReportLocation.reportJSON(at: report)
        let directory = try out.map(reportDirectory) ?? reportURL.deletingLastPathComponent()
        let loaded: BenchReport?
        var check: GateCheck
        do {
            var decoded = try ReportLocation.report(at: reportURL)
            let (limits, absent) = try parseLimits(for: decoded, directory: directory)
            for index in decoded.scenarios.indices { decoded.scenarios[index].judge(limits) }
            loaded = decoded
            check = noBaseline ? GateCheck(judgingOnItsOwn: decoded) : judge(decoded, baselinePath: baseline)
            check.harnessErrors += absent
        } catch let error as ValidationError {
            throw error
        } catch {
            loaded = nil
            check = GateCheck(unreadableReport: "\(reportURL.path): \(describe(error))")
        }
        try conclude(check, report: loaded, baselinePath: baselinePath, directory: directory, printing: json ? .rows : .table)
    }

    /// The `--threshold` limits, named against the report's scenarios, and a harness error for each
    /// that names a scenario of the registry the report does not hold (an interrupted run, a
    /// report of other scenarios): nothing was shown to meet it. A report without scenarios is the
    /// gate's harness error whatever the limits.
    /// - Throws: a usage error for a malformed limit or one naming no scenario at all, having
    ///   removed the verdict of an earlier check, which a CI job would otherwise read.
    private func parseLimits(for report: BenchReport, directory: URL) throws -> (limits: [RunThreshold], absent: [String]) {
        let names = report.scenarios.map(\.scenario)
        let known = SegmentsBenchCLI.registry.names
        var limits: [RunThreshold] = []
        var absent: [String] = []
        for text in names.isEmpty ? [] : thresholds {
            do throws(RunThresholdError) {
                limits.append(try RunThreshold.parse(text, scenarios: names, known: known))
            } catch {
                if let missing = try? RunThreshold.parse(text, scenarios: known), !names.contains(missing.scenario) {
                    absent.append("--threshold '\(text)' names scenario \(missing.scenario), which the report does not hold: nothing was shown to meet it")
                    continue
                }
                try? GateVerdictFiles(directory: directory).removeEarlierVerdict()
                throw ValidationError(error.description)
            }
        }
        return (limits, absent)
    }
}

/// `report` judged against the baseline at `baselinePath`; a baseline that cannot be read is a
/// harness error, not a thrown error.
func judge(_ report: BenchReport, baselinePath: String, everyScenarioMustRun: Bool = false) -> GateCheck {
    do {
        return GateCheck(
            report: report, baseline: try Baseline.load(from: URL(fileURLWithPath: baselinePath)),
            everyScenarioMustRun: everyScenarioMustRun)
    } catch {
        return GateCheck(report: report, unreadableBaseline: "\(baselinePath): \(describe(error))")
    }
}

/// An error in one line: a file error as the system words it, anything else as it describes itself.
func describe(_ error: any Error) -> String {
    if let error = error as? CocoaError {
        // The underlying POSIX error says what went wrong ("Not a directory"); Foundation's own
        // text for some codes is empty.
        if let underlying = error.underlying as? POSIXError { return String(cString: strerror(underlying.code.rawValue)) }
        // A failed write on Linux carries its cause as an NSError of the POSIX domain.
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
    if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
    return String(describing: error)
}

/// How ``conclude(_:report:baselinePath:directory:printing:)`` prints the verdict on standard output.
enum VerdictPrinting {
    /// The table of notable rows, warnings, harness errors and the verdict line.
    case table
    /// Every row as a JSON array (warnings and errors go to standard error).
    case rows
    /// The report (`nil`: nothing ran) and the verdict as one JSON document (``GatedReport``).
    case gatedReport(BenchReport?)
}

/// Writes the verdict files into `directory`, prints the verdict, and throws the exit code when it
/// is not 0 (``ExitStatus``: 2 regression, 3 violation, 70 harness error). A verdict that cannot be
/// written is a harness error.
func conclude(_ check: GateCheck, report: BenchReport?, baselinePath: String, directory: URL, printing: VerdictPrinting) throws {
    var check = check
    var written = true
    do {
        try GateVerdictFiles(directory: directory).write(check, report: report, baselinePath: baselinePath)
    } catch {
        // None of a placeholder (ci's "did not finish") or part of this verdict stays behind.
        try? GateVerdictFiles(directory: directory).removeEarlierVerdict()
        written = false
        check.harnessErrors.append("the verdict could not be written into \(directory.path): \(describe(error))")
    }
    let status = check.exitStatus
    switch printing {
    case .table:
        print(check.renderTable())
        if written {
            print("Verdict: \(directory.appendingPathComponent(GateVerdictFiles.json).path), \(GateVerdictFiles.junit), \(GateVerdictFiles.summary)")
        }
    case .rows, .gatedReport:
        let lines = check.warnings.map { "warning: \($0)" } + check.harnessErrors.map { "harness error: \($0)" } + [check.verdictLine]
        FileHandle.standardError.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        if case .gatedReport(let report) = printing {
            print(try GatedReport(report: report, check: check).jsonText())
        } else {
            // The report's encoder: a figure that is not a number (NaN) is written as a string
            // rather than making the encoding throw.
            print(String(decoding: try ReportWriter.makeJSONEncoder().encode(check.rows), as: UTF8.self))
        }
    }
    if status != .pass { throw ExitCode(status.rawValue) }
}

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline", abstract: "Manage the committed baseline.", subcommands: [Update.self])

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update", abstract: "Write the baseline from a report (default: run the CI suite now).")
        @Option(help: "Take the figures from this report (a report directory or its report.json) instead of running the CI suite.") var from: String?
        @Option(help: "Baseline file to write.") var to: String = "Reports/baseline.json"
        @Option(help: "Report directory when running (default: Reports/latest).") var out: String?

        func validate() throws {
            if from != nil, out != nil {
                throw ValidationError("--out is where a run writes its report; with --from nothing runs")
            }
        }

        /// Writes the baseline from the report given or run. Refuses a report in which a scenario
        /// failed (a harness error), and a report given (`--from`) that lacks scenarios the baseline
        /// at `--to` gates, which replacing it would stop gating, that is itself the file at `--to`,
        /// or whose `--to` exists but cannot be read as a baseline (usage errors: write it
        /// elsewhere with `--to`).
        func run() throws {
            // Checked before the suite runs, so that its minutes are not lost to a bad path.
            try checkWritableFile(to, option: "--to")
            let report: BenchReport
            if let from {
                // A report directory, as `check --report` and `merge` take, or its report.json.
                let url = ReportLocation.reportJSON(at: from)
                if namesTheSameFile(url.path, to) {
                    throw ValidationError("--to is the report given with --from (\(url.path)): a baseline written there would replace the report")
                }
                // What a baseline that cannot be read gates is unknown, so the check below of the
                // scenarios it would stop gating cannot be made.
                if FileManager.default.fileExists(atPath: to) {
                    do { _ = try Baseline.load(from: URL(fileURLWithPath: to)) } catch {
                        throw ValidationError(
                            "\(to) exists but cannot be read as a baseline (\(describe(error))); what it gates is unknown, so it is "
                                + "not replaced: remove it, or write this baseline elsewhere with --to")
                    }
                }
                do {
                    report = try ReportLocation.report(at: url)
                } catch {
                    throw BaselineRefusal("\(url.path) cannot be read as a report: \(describe(error))")
                }
            } else {
                var options = BenchOptions()
                options.quick = true
                options.engine = SegmentsBenchCLI.registry.engine
                report = try runAndReport(
                    try runnableSuite(options: options), options: options, out: out ?? "Reports/latest", printing: .summary)
            }
            let failed = report.failedScenarios
            guard failed.isEmpty else {
                throw BaselineRefusal(
                    "no baseline is taken from a run in which \(failed.count == 1 ? "a scenario" : "scenarios") failed: \(failed.joined(separator: ", "))")
            }
            // Figures the gate could not judge (not a number, a name reported twice) make no baseline.
            let problems = GateCheck.harnessErrors(in: report)
            guard problems.isEmpty else {
                throw BaselineRefusal("no baseline is taken from this run: " + problems.joined(separator: "; "))
            }
            let violated = Baseline.correctnessViolations(in: report)
            guard violated.isEmpty else {
                throw BaselineRefusal("no baseline is taken from a run that broke a correctness rule: " + violated.joined(separator: "; "))
            }
            // `check` fails such a run (exit 2): its figures are not a level to hold later runs to.
            guard report.thresholdsFailed == 0 else {
                throw BaselineRefusal("no baseline is taken from a run that missed \(report.thresholdsFailed) of its --threshold limits")
            }
            let destination = URL(fileURLWithPath: to)
            if let current = try? Baseline.load(from: destination) {
                let lost = current.allocationFiguresUncounted(by: report)
                if !lost.isEmpty {
                    throw BaselineRefusal(
                        "this run could not count allocations (\(AllocationProbe.unavailableNote)); replacing \(to) would stop gating "
                            + "\(lost.joined(separator: ", ")). Run where jemalloc is available, or write this baseline elsewhere with --to")
                }
            }
            // A report given may be of a few scenarios; the suite run here is the whole of it, so
            // what it no longer has is meant to go.
            if from != nil, let current = try? Baseline.load(from: destination) {
                let ran = Set(report.scenarios.map(\.scenario))
                let dropped = Set(current.figures.keys.map { String($0.prefix { $0 != "." }) }).subtracting(ran).sorted()
                if !dropped.isEmpty {
                    throw ValidationError(
                        "\(to) also gates \(dropped.joined(separator: ", ")), which this report lacks; replacing it would stop gating "
                            + "\(dropped.count == 1 ? "that scenario" : "those scenarios"). Run the whole CI suite "
                            + "(segments-bench baseline update), or write this baseline elsewhere with --to")
                }
            }
            let baseline = Baseline(from: report)
            do { try baseline.write(to: destination) } catch {
                throw BaselineRefusal("the baseline could not be written to \(to): \(describe(error))")
            }
            print("Baseline with \(baseline.figures.count) gated figures written to \(to)")
        }
    }

    /// Why no baseline was written (a harness error, exit 70).
    struct BaselineRefusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

struct CICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ci",
        abstract: "The quick regression gate: run every scenario with --quick, write the report, check it against the baseline.",
        discussion: """
            Writes the report and, next to it, gate.json, gate-junit.xml and gate-summary.md. With --json, standard output \
            is one JSON document: {"report": <report.json>, "gate": {"passed": …, "exitCode": …, "rows": […]}}; when the \
            baseline cannot be read, nothing runs, the document has no report, and the exit code is 70.


            """ + ExitStatus.helpText)
    @Option(help: "Baseline file.") var baseline: String = "Reports/baseline.json"
    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "A limit the run must also meet (repeatable), as `run --threshold` takes it, naming its scenario: 'p99(pull.cache-hit)<2us', 'value(tracking-storm.eventsPerSecond)>1e6'. A missed one fails the gate (exit 2).",
        valueName: "limit"))
    var thresholds: [String] = []
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = BenchOptions()
        options.quick = true
        options.engine = SegmentsBenchCLI.registry.engine
        let directory = try reportDirectory(output.out)
        do {
            try GateVerdictFiles(directory: directory).removeEarlierVerdict()
        } catch {
            throw ValidationError("--out \(output.out): the earlier verdict cannot be removed: \(describe(error))")
        }
        // A usage error leaves no verdict at all.
        let suite = try runnableSuite(options: options)
        options.thresholds = try parseThresholds(thresholds, for: suite, target: nil)
        // Read first: a baseline that cannot be read fails the gate whatever the suite measures,
        // so the suite does not run for nothing.
        do {
            _ = try Baseline.load(from: URL(fileURLWithPath: baseline))
        } catch {
            let check = GateCheck(report: nil, unreadableBaseline: "\(baseline): \(describe(error))")
            return try conclude(
                check, report: nil, baselinePath: baseline, directory: directory, printing: output.json ? .gatedReport(nil) : .table)
        }
        // Interrupted, the gate's files still say why it has no verdict: a CI job killed at its
        // time limit leaves a failed test in its JUnit report, not nothing. Until the verdict (or
        // an interruption's, which names the signal) replaces it, they say the run did not finish:
        // so they do if it is killed outright, or ends while writing its report.
        var unfinished = GateCheck(unreadableReport: "")
        unfinished.harnessErrors = ["the run did not finish: it was killed, or ended while it wrote its report"]
        _ = try? GateVerdictFiles(directory: directory).write(unfinished, report: nil, baselinePath: baseline)
        let report: BenchReport
        do {
            report = try runAndReport(
                suite, options: options, out: output.out, printing: output.json ? .nothing : .summary,
                onInterruption: { partial, directory in
                    _ = try? GateVerdictFiles(directory: directory).write(
                        judge(partial, baselinePath: baseline, everyScenarioMustRun: true), report: partial, baselinePath: baseline)
                })
        } catch {
            // Said on standard error with its exit code; no verdict stands for it.
            try? GateVerdictFiles(directory: directory).removeEarlierVerdict()
            throw error
        }
        try conclude(
            judge(report, baselinePath: baseline, everyScenarioMustRun: true), report: report, baselinePath: baseline,
            directory: directory, printing: output.json ? .gatedReport(report) : .table)
    }
}

/// Runs `body` (a suite run following `suite`); if the command is told to end meanwhile (`SIGINT`,
/// `SIGTERM`, `SIGHUP`), writes the report of the scenarios that finished into `directory`, marked
/// interrupted (it fails the gate), says so on standard error, and exits with 128 + the signal's
/// number. Without it, an interrupted run left nothing but an earlier run's report, which reads as
/// this one's. A `SIGHUP` the process ignores (`nohup`) stays ignored. The signals' earlier
/// handling is back once `body` returns. `afterWriting` is given the interrupted report and
/// `directory` once the report is written (`ci` writes its verdict files there).
///
/// Returns with `writing` locked: the caller writes the whole report, then unlocks it. A signal
/// handler takes it for good, so a signal after `body` returned waits for that write and then only
/// ends the process, and one during `body` writes its report with no other write under way.
func writingWhatFinishedOnSignal(
    suite: SuiteProgress, directory: URL, started: Date, command: String, writing: NSLock,
    afterWriting: (@Sendable (BenchReport, URL) -> Void)? = nil, _ body: () -> BenchReport
) -> BenchReport {
    let finished = LockedBox(false)
    // nohup's SIGHUP stays ignored; SIGINT is caught even in a script's background job, so that
    // `kill -INT` ends the run there too.
    let report = handlingSignals([SIGINT, SIGTERM, SIGHUP], keptIgnored: [SIGHUP], handler: { signalNumber in
        writing.lock()
        guard !finished.withLock({ $0 }) else { exit(128 + signalNumber) }
        let (done, running) = suite.snapshot
        let name = String(cString: strsignal(signalNumber))
        var report = BenchReport(
            machine: MachineInfo.current(), gitRevision: SuiteRunner.gitRevision(), startedAt: started, command: command,
            scenarios: done)
        report.interrupted = "signal \(signalNumber) (\(name))" + (running.map { " during scenario \($0)" } ?? "")
        var message = "\nsegments-bench: interrupted by signal \(signalNumber) (\(name))" + (running.map { " during \($0)" } ?? "")
        do {
            try ReportWriter(directory: directory).write(report)
            afterWriting?(report, directory)
            message += done.isEmpty
                ? "; no scenario finished: \(directory.path) holds an empty report, marked interrupted\n"
                : "; the report of the \(done.count) scenario\(done.count == 1 ? "" : "s") that finished, marked interrupted: \(directory.appendingPathComponent("index.html").path)\n"
        } catch {
            message += "; the report could not be written: \(error)\n"
        }
        FileHandle.standardError.write(Data(message.utf8))
        exit(128 + signalNumber)
    }) {
        let report = body()
        writing.lock()
        finished.withLock { $0 = true }
        return report
    }
    return report
}
