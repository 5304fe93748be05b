import Foundation

/// How far a suite run has got: the scenarios that finished and the one running. Read from another
/// thread (a signal handler that writes what finished).
///
/// Threading: any thread.
public final class SuiteProgress: Sendable {
    private let state = LockedBox<(finished: [ScenarioResult], running: String?)>(([], nil))

    public init() {}

    /// The scenarios that finished, in order, and the one running (`nil` between scenarios).
    public var snapshot: (finished: [ScenarioResult], running: String?) { state.withLock { $0 } }

    func begin(_ scenario: String) { state.withLock { $0.running = scenario } }

    func finish(_ result: ScenarioResult) {
        state.withLock {
            $0.finished.append(result)
            $0.running = nil
        }
    }
}

/// Runs scenarios one after another and assembles the report.
public enum SuiteRunner {
    /// Runs `scenarios` with `options`, judging each result by the options' thresholds that belong
    /// to it (``ScenarioResult/judge(_:)``). A scenario that throws is recorded with a note and a
    /// failing `…scenarioFailed` figure instead of ending the run; so is one that cannot run
    /// against the options' target (``Scenario/refusal(of:)``), without running it.
    /// `suite`, when given, follows the run (see ``SuiteProgress``).
    public static func run(
        _ scenarios: [any Scenario], options: BenchOptions, progress: Progress, command: String, suite: SuiteProgress? = nil
    ) -> BenchReport {
        let started = Date()
        let machine = MachineInfo.current()
        var results: [ScenarioResult] = []
        for scenario in scenarios {
            suite?.begin(scenario.name)
            defer { if let last = results.last { suite?.finish(last) } }
            let scoped = progress.scoped(scenario.name)
            scoped.say("start")
            let begin = monotonicNanoseconds()
            do {
                if let refusal = scenario.refusal(of: options) { throw ScenarioRefusal(reason: refusal) }
                var result = try scenario.run(options, progress: scoped)
                result.wallSeconds = Double(monotonicNanoseconds() - begin) / 1e9
                result.judge(options.thresholds ?? [])
                progress.metrics?.publish(result)
                results.append(result)
                scoped.say(String(format: "done in %.1f s", result.wallSeconds))
            } catch {
                scoped.say("failed: \(error)")
                var failed = ScenarioResult(
                    scenario: scenario.name, summary: "\(scenario.simulates). Measures \(scenario.measures).",
                    configuration: options.configuration(honouring: scenario.honouredOptions),
                    figures: [Figure(name: "\(scenario.name).scenarioFailed", value: 1, unit: "count", gate: .zero,
                                     summary: "the scenario could not run: \(error)")],
                    allocationsMeasured: false, notes: ["failed: \(error)"])
                failed.judge(options.thresholds ?? [])
                results.append(failed)
            }
        }
        return BenchReport(machine: machine, gitRevision: gitRevision(), startedAt: started, command: command, scenarios: results)
    }

    /// `git rev-parse HEAD` of the checkout at `directory` (default: the current directory), with
    /// `-dirty` when the tree has changes; `unknown` outside a checkout.
    public static func gitRevision(in directory: URL? = nil) -> String {
        guard let head = shell(["git", "rev-parse", "HEAD"], in: directory)?.trimmingCharacters(in: .whitespacesAndNewlines),
              !head.isEmpty
        else {
            return "unknown"
        }
        let dirty = shell(["git", "status", "--porcelain"], in: directory).map { !$0.isEmpty } ?? false
        return dirty ? head + "-dirty" : head
    }

    private static func shell(_ arguments: [String], in directory: URL? = nil) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}

extension BenchReport {
    /// The scenarios of this report that threw or were refused (their `…scenarioFailed` figure is
    /// not 0), in report order.
    public var failedScenarios: [String] {
        scenarios.filter { result in
            result.figures.contains { $0.name.hasSuffix(GateCheck.scenarioFailedSuffix) && $0.value != 0 }
        }.map(\.scenario)
    }
}

/// A scenario that cannot run with the options given (``Scenario/refusal(of:)``).
struct ScenarioRefusal: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
