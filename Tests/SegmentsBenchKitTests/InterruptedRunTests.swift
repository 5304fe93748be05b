import Foundation
import SegmentsBenchKit
import XCTest

/// A run told to end (Ctrl-C, a CI job's timeout) writes what finished, marked interrupted, and
/// says so: it used to exit without a word, leaving an earlier run's report in `--out` to be read
/// as this one's.
final class InterruptedRunTests: XCTestCase {
    /// The segments-bench that `swift build --build-tests` built beside this test bundle.
    private var bench: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("segments-bench")
    }

    func testAnInterruptedRunWritesAReportMarkedInterruptedAndSaysSo() throws {
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw XCTSkip("no segments-bench beside the test bundle at \(bench.path)")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("interrupted-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = bench
        process.arguments = ["run", "soak", "--quick", "--out", out.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let reader = errors.fileHandleForReading
        var text = ""
        while !text.contains("[soak] start") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("[soak] start"), text)
        kill(process.processIdentifier, SIGINT)
        guard exited.wait(timeout: .now() + 30) == .success else {
            process.terminate()
            return XCTFail("the run did not end on SIGINT")
        }
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 130, text)
        XCTAssertTrue(text.contains("segments-bench: interrupted by signal 2"), text)
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
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw XCTSkip("no segments-bench beside the test bundle at \(bench.path)")
        }
        let baseline = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Reports/baseline.json")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("interrupted-ci-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = bench
        process.arguments = ["ci", "--baseline", baseline.path, "--out", out.path]
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
        kill(process.processIdentifier, SIGTERM)
        guard exited.wait(timeout: .now() + 30) == .success else {
            process.terminate()
            return XCTFail("ci did not end on SIGTERM")
        }
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM, text)
        let verdict = try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.json), encoding: .utf8)
        XCTAssertTrue(verdict.contains("the run was interrupted (signal 15"), verdict)
        let junit = try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.junit), encoding: .utf8)
        XCTAssertTrue(junit.contains("interrupted"), junit)
    }

    /// `ci` killed outright (SIGKILL: no handler runs) leaves verdict files that say the run did
    /// not finish, not an earlier run's verdict and not nothing.
    func testACIKilledOutrightLeavesVerdictFilesSayingItDidNotFinish() throws {
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw XCTSkip("no segments-bench beside the test bundle at \(bench.path)")
        }
        let baseline = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Reports/baseline.json")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("killed-ci-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = bench
        process.arguments = ["ci", "--baseline", baseline.path, "--out", out.path]
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
        kill(process.processIdentifier, SIGKILL)
        XCTAssertEqual(exited.wait(timeout: .now() + 30), .success)
        let verdict = try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.json), encoding: .utf8)
        XCTAssertTrue(verdict.contains("the run did not finish"), verdict)
        XCTAssertTrue(try String(contentsOf: out.appendingPathComponent(GateVerdictFiles.junit), encoding: .utf8).contains("did not finish"))
    }
}
