import ArgumentParser
import Foundation
import SegmentsBenchKit

/// Entry point: jemalloc first (allocation counts need it to be the allocator from the start).
@main
enum Entry {
    static func main() {
        JemallocRuntime.preloadIfAvailable()
        SegmentsBench.main()
    }
}

/// `segments-bench`: the benchmark and load-testing harness of RealtimeSegments.
struct SegmentsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segments-bench",
        abstract: "Benchmark and load-test the RealtimeSegments engine against an in-process mock segments server.",
        discussion: "With no subcommand, runs the default suite (about two minutes) and writes Reports/latest/.",
        subcommands: [SuiteCommand.self, ListCommand.self, RunCommand.self, CheckCommand.self, BaselineCommand.self,
                      CICommand.self, ServeCommand.self, CompareCommand.self, CalibrateCommand.self],
        defaultSubcommand: SuiteCommand.self)
}

/// Options shared by the commands that run scenarios.
struct LoadOptions: ParsableArguments {
    @Option(help: "Callbacks to register (a sweep's largest N).") var callbacks: Int?
    @Option(help: "Producer threads.") var producers: Int?
    @Option(help: "Target events per second per producer (default: flat out).") var rate: Double?
    @Option(help: "Seconds of load.") var duration: Double?
    @Option(name: .customLong("switch-rate"), help: "Customer switches per second.") var switchRate: Double?
    @Option(help: "Engine transport: memory (isolates the engine) or http (loopback).") var transport: BenchOptions.Transport = .memory
    @Option(help: "Engine debounce in seconds.") var debounce: Double?
    @Option(help: "Seed of every random choice.") var seed: UInt64 = 1
    @Flag(help: "Shorter runs (what the CI gate uses).") var quick = false

    var benchOptions: BenchOptions {
        var options = BenchOptions()
        options.callbacks = callbacks
        options.producers = producers
        options.rate = rate
        options.duration = duration
        options.switchRate = switchRate
        options.transport = transport
        options.debounce = debounce
        options.seed = seed
        options.quick = quick
        return options
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
func runAndReport(_ scenarios: [any Scenario], options: BenchOptions, output: OutputOptions) throws -> BenchReport {
    try runAndReport(scenarios, options: options, out: output.out, printing: output.json ? .json : .summary)
}

/// Runs scenarios, writes the report into `out`, prints as `printing` says.
func runAndReport(_ scenarios: [any Scenario], options: BenchOptions, out: String, printing: ReportPrinting) throws
    -> BenchReport
{
    let command = (["segments-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
    if !AllocationProbe.isAvailable {
        FileHandle.standardError.write(Data("note: \(AllocationProbe.unavailableNote)\n".utf8))
    }
    let report = SuiteRunner.run(scenarios, options: options, progress: Progress(enabled: true), command: command)
    let directory = URL(fileURLWithPath: out, isDirectory: true)
    let files = try ReportWriter(directory: directory).write(report)
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

struct SuiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "suite", abstract: "Run every scenario (the default).")
    @OptionGroup var load: LoadOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        _ = try runAndReport(ScenarioCatalog.all, options: load.benchOptions, output: output)
    }
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the scenarios.")
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        if json {
            let entries = ScenarioCatalog.all.map { ["name": $0.name, "simulates": $0.simulates, "measures": $0.measures] }
            print(String(decoding: try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
            return
        }
        for scenario in ScenarioCatalog.all {
            print("\(scenario.name)\n  simulates: \(scenario.simulates)\n  measures:  \(scenario.measures)")
        }
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run one scenario.")
    @Argument(help: "Scenario name (see `segments-bench list`).") var scenario: String
    @OptionGroup var load: LoadOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard let found = ScenarioCatalog.named(scenario) else {
            throw ValidationError("unknown scenario '\(scenario)'; known: \(ScenarioCatalog.all.map(\.name).joined(separator: ", "))")
        }
        _ = try runAndReport([found], options: load.benchOptions, output: output)
    }
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Compare a report with a baseline: exit 0 when no figure regressed, 1 when one did.")
    @Option(help: "Baseline file.") var baseline: String = "Reports/baseline.json"
    @Option(help: "Report to check.") var report: String = "Reports/latest/report.json"
    @Flag(help: "JSON output.") var json = false

    func run() throws {
        let check = try GateCheck(
            report: ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: report))),
            baseline: Baseline.load(from: URL(fileURLWithPath: baseline)))
        try printAndExit(check, json: json)
    }
}

func printAndExit(_ check: GateCheck, json: Bool) throws {
    if json {
        // The report's encoder: a figure that is not a number (NaN) is written as a string
        // rather than making the encoding throw.
        print(String(decoding: try ReportWriter.makeJSONEncoder().encode(check.rows), as: UTF8.self))
    } else {
        print(check.renderTable())
    }
    if !check.passed { throw ExitCode(1) }
}

struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline", abstract: "Manage the committed baseline.", subcommands: [Update.self])

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update", abstract: "Write the baseline from a report (default: run the CI suite now).")
        @Option(help: "Take the figures from this report instead of running the CI suite.") var from: String?
        @Option(help: "Baseline file to write.") var to: String = "Reports/baseline.json"
        @Option(help: "Report directory when running.") var out: String = "Reports/latest"

        func run() throws {
            let report: BenchReport
            if let from {
                report = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: from)))
            } else {
                var options = BenchOptions()
                options.quick = true
                report = try runAndReport(ScenarioCatalog.all, options: options, out: out, printing: .summary)
            }
            let baseline = Baseline(from: report)
            try baseline.write(to: URL(fileURLWithPath: to))
            print("Baseline with \(baseline.figures.count) gated figures written to \(to)")
        }
    }
}

struct CICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ci", abstract: "The quick regression gate: run every scenario with --quick, write the report, check it against the baseline.",
        discussion: "With --json, standard output is one JSON document: {\"report\": <report.json>, \"gate\": {\"passed\": …, \"rows\": […]}}.")
    @Option(help: "Baseline file.") var baseline: String = "Reports/baseline.json"
    @OptionGroup var output: OutputOptions

    func run() throws {
        var options = BenchOptions()
        options.quick = true
        let report = try runAndReport(
            ScenarioCatalog.all, options: options, out: output.out, printing: output.json ? .nothing : .summary)
        let check = GateCheck(report: report, baseline: try Baseline.load(from: URL(fileURLWithPath: baseline)))
        if output.json {
            print(try GatedReport(report: report, check: check).jsonText())
            if !check.passed { throw ExitCode(1) }
        } else {
            try printAndExit(check, json: false)
        }
    }
}
