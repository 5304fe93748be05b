import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

/// Values no run can use are usage errors naming the option (exit 64), found before anything runs;
/// a run whose scenario failed, or whose report or baseline cannot be used, does not end as a pass.
final class CommandLineInputTests: XCTestCase {
    /// The exit status and message of running `arguments`, or nil when it succeeded.
    private func failure(_ arguments: [String], registry: ScenarioRegistry = ScenarioRegistry()) -> (status: Int32, message: String)? {
        do {
            try SegmentsBenchCLI.run(arguments, registry: registry)
            return nil
        } catch {
            return (SegmentsBenchCLI.exitStatus(for: error), SegmentsBenchCLI.message(for: error))
        }
    }

    private func assertUsageError(
        _ arguments: [String], naming option: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let refused = failure(arguments) else {
            return XCTFail("\(arguments.joined(separator: " ")) was accepted", file: file, line: line)
        }
        XCTAssertEqual(refused.status, 64, "\(arguments.joined(separator: " ")): \(refused.message)", file: file, line: line)
        XCTAssertTrue(refused.message.contains("\(option) must be"), "\(arguments.joined(separator: " ")): \(refused.message)",
                      file: file, line: line)
    }

    /// A word where a command goes that names none is a usage error that says so, as is `help` of
    /// one: a script asking for a misspelt command's help must not pass.
    func testAnUnknownCommandIsAUsageErrorThatNamesIt() throws {
        let cases = [
            (["runn", "tracking-storm"], "segments-bench has no command named 'runn' (its commands: suite, list, run, check,"),
            (["help", "nonsense"], "segments-bench has no command named 'nonsense' (its commands: suite, list, run, check,"),
            (["help", "baseline", "nonsense"], "segments-bench baseline has no command named 'nonsense' (its commands: update)"),
            (["baseline", "nonsense"], "segments-bench baseline has no command named 'nonsense' (its commands: update)"),
        ]
        for (arguments, message) in cases {
            let refused = try XCTUnwrap(failure(arguments), "\(arguments) was accepted")
            XCTAssertEqual(refused.status, 64, "\(arguments): \(refused.message)")
            XCTAssertTrue(refused.message.contains(message), "\(arguments): \(refused.message)")
        }
        for arguments in [["help"], ["help", "run"], ["help", "baseline", "update"], ["run", "--help"], ["--help"]] {
            XCTAssertEqual(failure(arguments)?.status ?? 0, 0, "\(arguments)")
        }
    }

    /// `serve --host` takes a loopback address only; another is a usage error (64), found before
    /// anything binds.
    func testServeRefusesANonLoopbackHostAsAUsageError() throws {
        for host in ["0.0.0.0", "192.0.2.1", "localhost.example.com"] {
            let refused = try XCTUnwrap(failure(["serve", "--host", host, "--duration", "0.1"]), host)
            XCTAssertEqual(refused.status, 64, "\(host): \(refused.message)")
            XCTAssertTrue(refused.message.contains("--host"), refused.message)
        }
    }

    /// `serve` refuses a token that does not go into a URL path as it is, and a key no HTTP header
    /// can carry: it printed URLs such as `/webxp/projects/a?b#/segments` that no client can use.
    func testServeRefusesATokenOrKeyNoClientCanSendAsAUsageError() throws {
        for arguments in [["--token", "a?b#"], ["--token", "a b"], ["--token", "é"], ["--key", "a\nb"], ["--basic-auth", "id:se\rcret"]] {
            let refused = try XCTUnwrap(failure(["serve", "--duration", "0.1"] + arguments), "\(arguments)")
            XCTAssertEqual(refused.status, 64, "\(arguments): \(refused.message)")
            XCTAssertTrue(refused.message.contains(arguments[0] + " must"), "\(arguments): \(refused.message)")
        }
    }

    /// `--version` prints the version reports and baselines record, and exits 0.
    func testVersionPrintsTheToolVersion() throws {
        do {
            try SegmentsBenchCLI.run(["--version"], registry: ScenarioRegistry())
            XCTFail("--version ran the suite")
        } catch {
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 0, SegmentsBenchCLI.message(for: error))
            XCTAssertEqual(SegmentsBenchCLI.message(for: error), ToolVersion.current)
        }
    }

    func testCountsBelowOneAreUsageErrors() {
        let out = scratch()
        for value in ["-5", "0"] {
            assertUsageError(["run", "fanout-sweep", "--callbacks=\(value)", "--quick", "--out", out], naming: "--callbacks")
            assertUsageError(["run", "qualified", "--callbacks=\(value)", "--quick", "--out", out], naming: "--callbacks")
            assertUsageError(["run", "pull", "--producers=\(value)", "--quick", "--out", out], naming: "--producers")
            assertUsageError(["run", "tracking-storm", "--producers=\(value)", "--quick", "--out", out], naming: "--producers")
        }
    }

    func testDurationsRatesAndDelaysNoRunCanUseAreUsageErrors() {
        let out = scratch()
        for value in ["-1", "0", "nan", "inf", "1e300"] {
            assertUsageError(["run", "pull", "--duration=\(value)", "--out", out], naming: "--duration")
            assertUsageError(["run", "customer-switch", "--rate=\(value)", "--out", out], naming: "--rate")
            assertUsageError(["run", "customer-switch", "--switch-rate=\(value)", "--out", out], naming: "--switch-rate")
        }
        for value in ["1e-300", "0.0000001"] {
            assertUsageError(["run", "customer-switch", "--rate=\(value)", "--out", out], naming: "--rate")
            assertUsageError(["run", "customer-switch", "--switch-rate=\(value)", "--out", out], naming: "--switch-rate")
        }
        assertUsageError(["run", "fleet", "--devices", "5", "--rate=-100", "--duration", "1", "--out", out], naming: "--rate")
        for value in ["-1", "nan", "1e300"] {
            assertUsageError(["run", "customer-switch", "--debounce=\(value)", "--out", out], naming: "--debounce")
        }
        assertUsageError(["run", "fleet", "--devices", "2", "--fetch-delay-ms", "1e300", "--out", out], naming: "--fetch-delay-ms")
    }

    func testATargetPortOutsideItsRangeIsAUsageError() throws {
        for port in ["0", "99999"] {
            let refused = try XCTUnwrap(failure([
                "run", "pull", "--target", "http://127.0.0.1:\(port)", "--project-token", "p", "--authorization", "token:k",
                "--out", scratch(),
            ]), port)
            XCTAssertEqual(refused.status, 64, refused.message)
            XCTAssertTrue(refused.message.contains("port must be 1 to 65535"), refused.message)
        }
    }

    func testAnEmptyAuthorizationKeyIsNamedAndTheValueIsNotEchoed() throws {
        let refused = try XCTUnwrap(failure([
            "run", "pull", "--target", "http://127.0.0.1:8080", "--project-token", "p", "--authorization", "token:",
            "--out", scratch(),
        ]))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("an empty key"), refused.message)
        let secret = try XCTUnwrap(failure([
            "run", "pull", "--target", "http://127.0.0.1:8080", "--project-token", "p", "--authorization", "s3cr3t-key",
            "--out", scratch(),
        ]))
        XCTAssertEqual(secret.status, 64, secret.message)
        XCTAssertFalse(secret.message.contains("s3cr3t-key"), secret.message)
    }

    func testServeRefusesAPortOrDurationItCannotUse() throws {
        for arguments in [["--port", "70000"], ["--port=-1"], ["--duration=-1"], ["--duration=nan"], ["--token", ""]] {
            let refused = try XCTUnwrap(failure(["serve"] + arguments), "\(arguments)")
            XCTAssertEqual(refused.status, 64, "\(arguments): \(refused.message)")
        }
    }

    func testAScenarioThatFailsEndsTheRunWithAHarnessErrorAfterWritingTheReport() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(FailingScenario())
        let out = scratch()
        let failed = try XCTUnwrap(failure(["run", "failing", "--out", out], registry: registry))
        XCTAssertEqual(failed.status, 70, failed.message)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/report.json"), "the report is written first")
    }

    func testAnOutputDirectoryThatCannotBeMadeIsRefusedBeforeAnythingRuns() throws {
        let runs = RunCounter()
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(CountingScenario(runs: runs))
        let file = scratch()
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try XCTUnwrap(failure(["run", "counting", "--out", file + "/report"], registry: registry))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("--out"), refused.message)
        XCTAssertEqual(runs.count, 0, "refused before the scenario ran")
    }

    func testMergeNamesAnOutputDirectoryThatCannotBeMade() throws {
        let file = scratch()
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try XCTUnwrap(failure(["merge", scratch(), scratch(), "--out", file + "/merged"]))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("--out \(file)/merged: the report directory cannot be made: Not a directory"), refused.message)
    }

    /// `check --out` is refused as every other command's `--out` is: empty (the verdict went into
    /// the working directory and the gate passed) or not a directory (a harness error, 70).
    func testCheckRefusesAnOutDirectoryItCannotUseAsAUsageError() throws {
        let file = scratch()
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let workingDirectory = FileManager.default.currentDirectoryPath
        let earlier = try FileManager.default.contentsOfDirectory(atPath: workingDirectory)
        for (out, message) in [("", "--out is empty"), (file, "--out \(file): the report directory cannot be made")] {
            let refused = try XCTUnwrap(failure(["check", "--report", scratch() + "/missing/report.json", "--out", out]), out)
            XCTAssertEqual(refused.status, 64, "\(out): \(refused.message)")
            XCTAssertTrue(refused.message.contains(message), refused.message)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workingDirectory), earlier, "no verdict in the working directory")
    }

    /// A negative number is refused for its value, not read as a missing value ("Missing value for
    /// '--port <port>'"), on every numeric option, as `run`'s are.
    func testANegativeNumberIsRefusedForItsValueOnEveryCommand() throws {
        let out = scratch()
        let cases: [[String]] = [
            ["serve", "--port", "-1"], ["serve", "--duration", "-5"],
            ["compare", "--baseline-binary", "/bin/true", "--candidate-binary", "/bin/true", "--repetitions", "-3", "--out", out],
            ["compare", "--baseline-binary", "/bin/true", "--candidate-binary", "/bin/true", "--default-threshold", "-0.1", "--out", out],
            ["compare", "--baseline-binary", "/bin/true", "--candidate-binary", "/bin/true", "--run-timeout", "-1", "--out", out],
            ["calibrate", "--binary", "/bin/true", "--quantile", "-0.5", "--out", out + "/t.json"],
            ["run", "hot-path", "--metrics-port", "-1", "--out", out],
            ["run", "hot-path", "--metrics-port", "9464", "--metrics-linger-seconds", "-1", "--out", out],
        ]
        for arguments in cases {
            let refused = try XCTUnwrap(failure(arguments), "\(arguments) was accepted")
            XCTAssertEqual(refused.status, 64, "\(arguments): \(refused.message)")
            XCTAssertFalse(refused.message.contains("Missing value"), "\(arguments): \(refused.message)")
        }
    }

    /// A usage error found while a command runs shows that command's usage, not the top level's
    /// (`Usage: segments-bench <subcommand>`).
    func testAUsageErrorFoundWhileACommandRunsShowsThatCommandsUsage() throws {
        let file = scratch()
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try XCTUnwrap(failure(["merge", scratch(), scratch(), "--out", file + "/merged"]))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("Usage: segments-bench merge"), refused.message)
    }

    func testCIReadsTheBaselineBeforeRunningTheSuite() throws {
        let runs = RunCounter()
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(CountingScenario(runs: runs))
        let out = scratch()
        let refused = try XCTUnwrap(failure(["ci", "--baseline", scratch() + "/missing.json", "--out", out], registry: registry))
        XCTAssertEqual(refused.status, 70, refused.message)
        let summary = try String(contentsOfFile: out + "/gate-summary.md", encoding: .utf8)
        XCTAssertTrue(summary.contains("missing.json"), summary)
        XCTAssertEqual(runs.count, 0, "refused before the suite ran")
    }

    func testABaselineIsNotTakenFromAReportWhoseScenarioFailed() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(FailingScenario())
        let out = scratch()
        _ = failure(["run", "failing", "--out", out], registry: registry)
        let baseline = scratch() + "/baseline.json"
        let refused = try XCTUnwrap(failure(["baseline", "update", "--from", out + "/report.json", "--to", baseline], registry: registry))
        XCTAssertEqual(refused.status, 70, refused.message)
        XCTAssertTrue(refused.message.contains("failing"), refused.message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: baseline))
    }

    /// `--from` takes a report directory, as `check --report` and `merge` do (it read the
    /// directory as a file: "Is a directory", exit 70).
    func testABaselineIsTakenFromAReportDirectory() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(GatedScenario(name: "alpha"))
        let out = scratch()
        XCTAssertNil(failure(["run", "alpha", "--out", out], registry: registry).map { "\($0)" })
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(failure(["baseline", "update", "--from", out, "--to", baseline], registry: registry).map { "\($0)" })
        XCTAssertEqual(try Baseline.load(from: URL(fileURLWithPath: baseline)).figures.keys.sorted(), ["alpha.count"])
    }

    /// A run that missed a `--threshold` fails `check` (exit 2); it makes no baseline either.
    func testABaselineIsNotTakenFromARunThatMissedAThreshold() throws {
        let out = URL(fileURLWithPath: scratch())
        let report = BenchReport(
            machine: MachineInfo.current(), gitRevision: "abc", startedAt: Date(), command: "test",
            scenarios: [ScenarioResult(
                scenario: "alpha", summary: "s", configuration: [:],
                figures: [Figure(name: "alpha.count", value: 0, unit: "count", gate: .zero, summary: "c"),
                          Figure(name: "alpha.thresholdsFailed", value: 1, unit: "count", summary: "missed")],
                latencies: [], allocationsMeasured: false)])
        try ReportWriter(directory: out).write(report)
        let baseline = scratch() + "/baseline.json"
        let refused = try XCTUnwrap(failure(["baseline", "update", "--from", out.path, "--to", baseline]))
        XCTAssertEqual(refused.status, 70, refused.message)
        XCTAssertTrue(refused.message.contains("missed 1 of its --threshold limits"), refused.message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: baseline))
    }

    /// A negative number is refused for its value (it was "Missing value for '--producers'", as
    /// if the flag had none).
    func testANegativeNumberIsRefusedForItsValue() throws {
        let refused = try XCTUnwrap(failure(["run", "tracking-storm", "--producers", "-1"]))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("--producers must be"), refused.message)
        let rate = try XCTUnwrap(failure(["run", "soak", "--rate", "-5"]))
        XCTAssertEqual(rate.status, 64, rate.message)
        XCTAssertTrue(rate.message.contains("--rate must be"), rate.message)
    }

    func testABaselineIsNotReplacedByAReportThatLacksSomeOfItsScenarios() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(GatedScenario(name: "alpha"))
        try registry.register(GatedScenario(name: "beta"))
        let both = scratch()
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(failure(["baseline", "update", "--out", both, "--to", baseline], registry: registry).map { "\($0)" })
        let alphaOnly = scratch()
        XCTAssertNil(failure(["run", "alpha", "--out", alphaOnly], registry: registry).map { "\($0)" })
        let refused = try XCTUnwrap(failure(["baseline", "update", "--from", alphaOnly + "/report.json", "--to", baseline], registry: registry))
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("beta"), refused.message)
        XCTAssertEqual(try Baseline.load(from: URL(fileURLWithPath: baseline)).figures.keys.sorted(), ["alpha.count", "beta.count"])
        let elsewhere = scratch() + "/alpha-baseline.json"
        XCTAssertNil(failure(["baseline", "update", "--from", alphaOnly + "/report.json", "--to", elsewhere], registry: registry).map { "\($0)" })
        // Running the suite writes the whole suite's baseline: a scenario no longer in it goes.
        var fewer = ScenarioRegistry(builtIns: false)
        try fewer.register(GatedScenario(name: "alpha"))
        XCTAssertNil(failure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: fewer).map { "\($0)" })
        XCTAssertEqual(try Baseline.load(from: URL(fileURLWithPath: baseline)).figures.keys.sorted(), ["alpha.count"])
    }

    func testTheGateSaysHowManyFiguresItCheckedNotHowManyTheBaselineHolds() throws {
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(GatedScenario(name: "alpha"))
        try registry.register(GatedScenario(name: "beta"))
        let baseline = scratch() + "/baseline.json"
        XCTAssertNil(failure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: registry).map { "\($0)" })
        let alphaOnly = scratch()
        XCTAssertNil(failure(["run", "alpha", "--out", alphaOnly], registry: registry).map { "\($0)" })
        let report = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: alphaOnly + "/report.json")))
        let table = GateCheck(report: report, baseline: try Baseline.load(from: URL(fileURLWithPath: baseline))).renderTable()
        XCTAssertTrue(table.contains("All 1 gated figures checked are within their tolerance"), table)
        XCTAssertTrue(table.contains("1 baseline figures belong to scenarios that were not part of this run"), table)
    }

    /// A default threshold that no change could pass (infinite, or 100% and more: `5` meant as 5%
    /// reads as 500%) is a usage error, found before anything runs.
    func testCompareRefusesADefaultThresholdThatNoChangeCouldPass() {
        let binaries = ["--baseline-binary", "/nonexistent/a", "--candidate-binary", "/nonexistent/b", "--out", scratch()]
        for value in ["inf", "nan", "1", "5"] {
            assertUsageError(["compare", "--default-threshold", value] + binaries, naming: "--default-threshold")
        }
    }

    /// `compare` and `calibrate` find an unwritable `--out` before their runs, which can take an
    /// hour, not after them with the verdict lost.
    func testCompareAndCalibrateCheckTheirOutputBeforeRunning() throws {
        let directory = scratch()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let blocked = directory + "/file"  // a file where the output's directory would go
        XCTAssertTrue(FileManager.default.createFile(atPath: blocked, contents: Data("x".utf8)))
        let binaries = ["--baseline-binary", "/nonexistent/a", "--candidate-binary", "/nonexistent/b"]
        let compare = try XCTUnwrap(failure(["compare", "--out", blocked + "/compare"] + binaries))
        XCTAssertEqual(compare.status, 64, compare.message)
        XCTAssertTrue(compare.message.contains("--out"), compare.message)
        let calibrate = try XCTUnwrap(failure(["calibrate", "--binary", "/nonexistent/a", "--out", blocked + "/thresholds.json"]))
        XCTAssertEqual(calibrate.status, 64, calibrate.message)
        XCTAssertTrue(calibrate.message.contains("--out"), calibrate.message)
    }

    /// A threshold file calibrated for other runs would judge this comparison with the wrong noise.
    func testCompareRefusesAThresholdFileCalibratedForOtherRuns() throws {
        let file = scratch() + "/thresholds.json"
        try ThresholdFile(binary: "b", scenarios: ["peers"], repetitions: 9, groupSize: 9, quick: false, quantile: 0.95, figures: [:])
            .write(to: URL(fileURLWithPath: file))
        let binaries = ["--baseline-binary", "/nonexistent/a", "--candidate-binary", "/nonexistent/b", "--out", scratch()]
        let quick = try XCTUnwrap(failure(["compare", "--threshold-file", file, "--quick"] + binaries))
        XCTAssertEqual(quick.status, 64, quick.message)
        XCTAssertTrue(quick.message.contains("calibrated without --quick"), quick.message)
        let fewer = try XCTUnwrap(failure(
            ["compare", "--threshold-file", file, "--repetitions", "4", "--allow-few-repetitions"] + binaries))
        XCTAssertEqual(fewer.status, 64, fewer.message)
        XCTAssertTrue(fewer.message.contains("calibrated for groups of 9 runs"), fewer.message)
    }

    /// The default suite runs on a machine without a scenario's tool (skipping it with a note);
    /// `run` and `ci` do not skip it, so a gate never passes on figures nobody measured.
    func testTheSuiteSkipsAScenarioWhoseToolIsMissingAndCIDoesNot() throws {
        let toolRuns = RunCounter()
        let otherRuns = RunCounter()
        var registry = ScenarioRegistry(builtIns: false)
        try registry.register(CountingScenario(runs: toolRuns, name: "needs-tool", missingTool: "frob (apt-get install frob)"))
        try registry.register(CountingScenario(runs: otherRuns))
        XCTAssertNil(failure(["suite", "--out", scratch()], registry: registry).map { "\($0)" })
        XCTAssertEqual(toolRuns.count, 0, "skipped by the suite")
        XCTAssertEqual(otherRuns.count, 1)
        _ = failure(["run", "needs-tool", "--out", scratch()], registry: registry)
        XCTAssertEqual(toolRuns.count, 1, "run runs it")
        let baseline = scratch() + "/baseline.json"
        _ = failure(["baseline", "update", "--out", scratch(), "--to", baseline], registry: registry)
        _ = failure(["ci", "--baseline", baseline, "--out", scratch()], registry: registry)
        XCTAssertEqual(toolRuns.count, 3, "baseline update and ci run it")
    }

    private func scratch() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-input-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }
}

/// A scenario that always throws.
private struct FailingScenario: Scenario {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "the stub always fails" }
    }

    var name = "failing"
    var simulates = "nothing"
    var measures = "nothing"
    var honouredOptions: Set<BenchOptionName> = []

    func run(_ options: BenchOptions, progress: SegmentsBenchKit.Progress) throws -> ScenarioResult { throw Failure() }
}

/// How many times a ``CountingScenario`` ran.
private final class RunCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var runs = 0
    var count: Int { lock.withLock { runs } }
    func increment() { lock.withLock { runs += 1 } }
}

/// A scenario that counts its runs.
private struct CountingScenario: Scenario {
    let runs: RunCounter
    var name = "counting"
    var missingTool: String?
    var simulates = "nothing"
    var measures = "nothing"
    var honouredOptions: Set<BenchOptionName> = []

    func run(_ options: BenchOptions, progress: SegmentsBenchKit.Progress) throws -> ScenarioResult {
        runs.increment()
        return ScenarioResult(scenario: name, summary: "counting", configuration: [:],
                              figures: [Figure(name: "\(name).ran", value: 1, unit: "count", summary: "it ran")],
                              allocationsMeasured: false)
    }
}

/// A scenario with one gated figure, `<name>.count` (0 unless told), and with `allocations`, a
/// gated allocation count `<name>.allocs` measured as if jemalloc were there.
struct GatedScenario: Scenario {
    var name: String
    var count: Double = 0
    var allocations: Double?
    var simulates = "nothing"
    var measures = "nothing"
    var honouredOptions: Set<BenchOptionName> = []

    func run(_ options: BenchOptions, progress: SegmentsBenchKit.Progress) throws -> ScenarioResult {
        var figures = [Figure(name: "\(name).count", value: count, unit: "count", gate: .zero, summary: "zero")]
        if let allocations {
            figures.append(Figure(name: "\(name).allocs", value: allocations, unit: "allocs/op", gate: .allocations, summary: "allocations"))
        }
        return ScenarioResult(scenario: name, summary: name, configuration: [:], figures: figures, allocationsMeasured: allocations != nil)
    }
}
