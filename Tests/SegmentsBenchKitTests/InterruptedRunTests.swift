import Foundation
import SegmentsBenchKit
import XCTest

/// A run told to end (Ctrl-C, a CI job's timeout) writes what finished, marked interrupted, and
/// says so: it used to exit without a word, leaving an earlier run's report in `--out` to be read
/// as this one's.
final class InterruptedRunTests: XCTestCase {
    /// The committed baseline, for `ci`.
    private var baseline: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Reports/baseline.json")
    }

    /// A fresh `--out` directory, removed after the test.
    private func scratch(_ name: String) -> URL {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        return out
    }

    /// Runs segments-bench with `arguments`, sends `signal` once its standard error says a
    /// scenario started, and returns its exit status and standard error; `nil` (a failure
    /// recorded) if it did not end within 30 s.
    private func run(_ arguments: [String], sending signal: Int32) throws -> (status: Int32, errors: String)? {
        let bench = try BuiltBench.url()
        let process = Process()
        process.executableURL = bench
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let reader = errors.fileHandleForReading
        var text = ""
        while !text.contains("] start") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("] start"), text)
        kill(process.processIdentifier, signal)
        guard exited.wait(timeout: .now() + 30) == .success else {
            process.terminate()
            XCTFail("segments-bench \(arguments.joined(separator: " ")) did not end on signal \(signal)")
            return nil
        }
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    func testAnInterruptedRunWritesAReportMarkedInterruptedAndSaysSo() throws {
        let out = scratch("interrupted")
        guard let ended = try run(["run", "soak", "--quick", "--out", out.path], sending: SIGINT) else { return }
        XCTAssertEqual(ended.status, 130, ended.errors)
        XCTAssertTrue(ended.errors.contains("segments-bench: interrupted by signal 2"), ended.errors)
        let report = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: out.appendingPathComponent("report.json")))
        XCTAssertEqual(report.interrupted?.hasSuffix("during scenario soak"), true, "\(String(describing: report.interrupted))")
        XCTAssertTrue(report.scenarios.isEmpty)
        let check = GateCheck(report: report, baseline: Baseline(from: report))
        XCTAssertEqual(check.exitStatus, .harnessError, "an interrupted run passed the gate")
    }

    /// `ci` told to end (a CI job's time limit) writes the gate's files too, saying it has no
    /// verdict because the run was interrupted: a JUnit report with a failure, not none.
    func testAnInterruptedCIWritesItsVerdictFilesSayingSo() throws {
        let out = scratch("interrupted-ci")
        guard let ended = try run(["ci", "--baseline", baseline.path, "--out", out.path], sending: SIGTERM) else { return }
        XCTAssertEqual(ended.status, 128 + SIGTERM, ended.errors)
        let verdict = try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.json), encoding: .utf8)
        XCTAssertTrue(verdict.contains("the run was interrupted (signal 15"), verdict)
        let junit = try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.junit), encoding: .utf8)
        XCTAssertTrue(junit.contains("interrupted"), junit)
    }

    /// `ci` killed outright (SIGKILL: no handler runs) leaves verdict files that say the run did
    /// not finish, not an earlier run's verdict and not nothing.
    func testACIKilledOutrightLeavesVerdictFilesSayingItDidNotFinish() throws {
        let out = scratch("killed-ci")
        guard try run(["ci", "--baseline", baseline.path, "--out", out.path], sending: SIGKILL) != nil else { return }
        let verdict = try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.json), encoding: .utf8)
        XCTAssertTrue(verdict.contains("the run did not finish"), verdict)
        XCTAssertTrue(try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.junit), encoding: .utf8).contains("did not finish"))
    }
}
