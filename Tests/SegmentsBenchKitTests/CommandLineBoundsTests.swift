import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

/// Inputs that crashed the harness, or were taken and quietly misread: each is now refused before
/// anything runs (a usage error, 64) or judged a harness error (70), with a line naming it.
final class CommandLineBoundsTests: XCTestCase {
    private func failure(_ arguments: [String]) -> (status: Int32, message: String)? {
        do {
            try SegmentsBenchCLI.run(arguments, registry: ScenarioRegistry())
            return nil
        } catch {
            return (SegmentsBenchCLI.exitStatus(for: error), SegmentsBenchCLI.message(for: error))
        }
    }

    private func scratch() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bounds-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// `arguments` fail with `status`, saying `words` in the error, or (a verdict of `check`) in
    /// the `gate.json` written to `verdictIn`.
    private func assertRefused(
        _ arguments: [String], status: Int32 = 64, verdictIn: String? = nil, saying words: String, line: UInt = #line
    ) {
        guard let refused = failure(arguments) else {
            return XCTFail("\(arguments.joined(separator: " ")) was accepted", line: line)
        }
        XCTAssertEqual(refused.status, status, refused.message, line: line)
        let said = refused.message + ((verdictIn.flatMap { try? String(contentsOfFile: $0 + "/gate.json", encoding: .utf8) }) ?? "")
        XCTAssertTrue(said.contains(words), said, line: line)
    }

    private var binaries: [String] { ["--baseline-binary", "/nonexistent/a", "--candidate-binary", "/nonexistent/b"] }

    /// `--repetitions 9223372036854775807` and a huge `--resamples` trapped allocating.
    func testCompareBoundsItsCounts() {
        assertRefused(["compare", "--repetitions", "9223372036854775807", "--out", scratch()] + binaries, saying: "--repetitions must be at most")
        assertRefused(["compare", "--resamples", "9223372036854775807", "--out", scratch()] + binaries, saying: "--resamples must lie between")
        assertRefused(["compare", "--scenario", "hot-path", "--scenario", "hot-path", "--out", scratch()] + binaries,
                      saying: "names a scenario twice")
    }

    func testAThresholdFileIsCheckedBeforeAnyRun() throws {
        for (json, words) in [
            (#"{"version": 99, "binary": "b", "scenarios": [], "repetitions": 9, "groupSize": 9, "quick": false, "quantile": 0.95, "figures": {}}"#, "format version 99"),
            (#"{"version": 1, "binary": "b", "scenarios": [], "repetitions": 9, "groupSize": 0, "quick": false, "quantile": 0.95, "figures": {}}"#, "groupSize 0"),
            (#"{"version": 1, "binary": "b", "scenarios": [], "repetitions": 9, "groupSize": 9, "quick": false, "quantile": 0.95, "figures": {"x.y": {"unit": "ns", "relative": -1, "median": 1, "runs": 9}}}"#, "x.y's threshold -1.0"),
        ] {
            let file = scratch() + "/thresholds.json"
            try Data(json.utf8).write(to: URL(fileURLWithPath: file))
            assertRefused(["compare", "--threshold-file", file, "--out", scratch()] + binaries, saying: words)
        }
        assertRefused(["compare", "--threshold-file", scratch() + "/none.json", "--out", scratch()] + binaries,
                      saying: "No such file or directory")
    }

    /// Paths written after a long run are checked before it: an empty one, or a directory.
    func testOutputPathsAreCheckedFirst() {
        let directory = scratch()
        assertRefused(["run", "hot-path", "--quick", "--out", ""], saying: "--out is empty")
        assertRefused(["calibrate", "--binary", "/nonexistent/a", "--out", directory], saying: "is a directory")
        assertRefused(["baseline", "update", "--to", directory], saying: "is a directory")
    }

    /// The crash scenario's child trapped in its pacing on these (`Double value cannot be converted to Int`).
    func testTheCrashChildRefusesRatesItCannotPace() {
        for rate in ["nan", "-5", "1e300"] {
            assertRefused(["crash-child", "--url", "http://127.0.0.1:1", "--token", "t", "--key", "k", "--state-dir", scratch(), "--rate=\(rate)"],
                          saying: "--rate must be")
        }
    }

    func testServeRefusesEmptyCredentials() {
        assertRefused(["serve", "--key", "", "--duration", "0.1"], saying: "--key must be non-empty")
        assertRefused(["serve", "--basic-auth", ":secret", "--duration", "0.1"], saying: "both non-empty")
    }

    func testALingerIsAtMostADay() {
        assertRefused(["run", "hot-path", "--quick", "--metrics-port", "0", "--metrics-linger-seconds", "1e300"],
                      saying: "--metrics-linger-seconds must be 0 to 86400")
    }

    /// A port too large for an integer was read as no port, and the run went to port 80.
    func testATargetPortTooLargeForAnIntegerIsRefused() {
        XCTAssertThrowsError(try BenchTarget(
            url: "http://127.0.0.1:99999999999999999999999", projectToken: "p", authorization: "token:k", allowRemote: false))
    }

    /// What `check` and `merge` are given: a report of no scenario, a negative count, a later
    /// format, a figure in two units.
    func testReportsThatCannotBeJudgedAreHarnessErrors() throws {
        func write(_ report: BenchReport, to directory: String) throws -> String {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/report.json"
            try ReportWriter.makeJSONEncoder().encode(report).write(to: URL(fileURLWithPath: path))
            return path
        }
        func report(_ figures: [Figure], host: String = "a", scenario: String = "stub") -> BenchReport {
            BenchReport(
                machine: MachineInfo(hostname: host, cores: 2, memoryBytes: 1, cpuModel: "x", kernel: "k", swiftVersion: "s",
                                     loadAverage: "0", jemalloc: "unavailable"),
                gitRevision: "r", startedAt: Date(), command: "c \(host)",
                scenarios: figures.isEmpty ? [] : [ScenarioResult(scenario: scenario, summary: "s", configuration: [:], figures: figures, allocationsMeasured: false)], toolVersion: "t")
        }
        let base = scratch()
        let baseline = base + "/baseline.json"
        try Data(#"{"figures": {}}"#.utf8).write(to: URL(fileURLWithPath: baseline))
        let empty = try write(report([]), to: base + "/empty")
        assertRefused(["check", "--report", empty, "--baseline", baseline, "--out", base + "/v1"], status: 70, verdictIn: base + "/v1", saying: "holds no scenario")
        let negative = try write(report([Figure(name: "costs.check.allocations", value: -400, unit: "allocs/op", summary: "s")], scenario: "costs"), to: base + "/negative")
        assertRefused(["check", "--report", negative, "--baseline", baseline, "--out", base + "/v2"], status: 70, verdictIn: base + "/v2", saying: "never negative")

        let later = base + "/later/report.json"
        try FileManager.default.createDirectory(atPath: base + "/later", withIntermediateDirectories: true)
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: negative))) as? [String: Any])
        object["version"] = 99
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: later))
        assertRefused(["check", "--report", later, "--baseline", baseline, "--out", base + "/v3"], status: 70, verdictIn: base + "/v3", saying: "format version 99")

        // A report's directory, as `merge` takes it: its report.json is checked, and the verdict
        // goes into that directory (it went into the directory above it, from a harness error).
        let passing = try write(report([Figure(name: "stub.lost", value: 0, unit: "count", gate: .zero, summary: "s")], scenario: "stub"), to: base + "/dir")
        XCTAssertNil(failure(["check", "--report", base + "/dir", "--baseline", baseline]), "check --report DIR")
        XCTAssertTrue(FileManager.default.fileExists(atPath: base + "/dir/gate.json"), "the verdict beside \(passing)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/gate.json"), "a verdict in the directory above the report")

        let inMilliseconds = report([Figure(name: "stub.x", value: 1, unit: "ms", summary: "s")], host: "a")
        let inAllocations = report([Figure(name: "stub.x", value: 1, unit: "allocs/op", summary: "s")], host: "b")
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: inMilliseconds), (host: "b", report: inAllocations)], command: "merge")) {
            XCTAssertEqual($0 as? MergeError, .unitsDiffer(figure: "stub.x", units: ["a: ms", "b: allocs/op"]))
        }
    }
}
