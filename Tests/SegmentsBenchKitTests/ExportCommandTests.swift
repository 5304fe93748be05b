import Foundation
@testable import SegmentsBenchCLI
@testable import SegmentsBenchKit
import XCTest

/// `segments-bench export`: writes the format asked for, and refuses what it cannot do with the
/// command line's statuses (64 usage, 70 an unreadable report) without touching the report.
final class ExportCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        let report = BenchReport(
            machine: MachineInfo(hostname: "ci", cores: 2, memoryBytes: 1, cpuModel: "c", kernel: "k", swiftVersion: "6",
                                 loadAverage: "0", jemalloc: "unavailable"),
            gitRevision: "abc", startedAt: Date(timeIntervalSince1970: 1_795_953_600), command: "test",
            scenarios: [ScenarioResult(
                scenario: "pull", summary: "s", configuration: [:],
                figures: [Figure(name: "pull.requestsPerMiss", value: 0.5, unit: "ratio", gate: .atMost(1), summary: "r")],
                latencies: [], allocationsMeasured: false)])
        try ReportWriter(directory: directory).write(report)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var reportJSON: URL { directory.appendingPathComponent("report.json") }

    func testItWritesTheFormatAskedForFromAReportDirectory() throws {
        let out = directory.appendingPathComponent("figures.influx")
        XCTAssertNil(commandFailure(["export", "--report", directory.path, "--format", "influx", "--out", out.path], registry: ScenarioRegistry()))
        let report = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: reportJSON))
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8), try ExportFormat.influx.render(report).text)
        XCTAssertTrue(try String(contentsOf: out, encoding: .utf8).hasPrefix("segments_bench_figure,scenario=pull,figure=pull.requestsPerMiss"))
    }

    /// `--out` writes into what it names, as a shell's `>` does: through a link to its target, into a
    /// file keeping its permissions. Written atomically, the link (and, run as root, `/dev/null`)
    /// was replaced by a plain file.
    func testOutWritesThroughALinkAndKeepsAFilesPermissions() throws {
        let target = directory.appendingPathComponent("target.csv")
        try Data("old".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
        let link = directory.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        XCTAssertNil(commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", link.path], registry: ScenarioRegistry()))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path, "the link is still a link")
        XCTAssertTrue(try String(contentsOf: target, encoding: .utf8).hasPrefix("started_at,"), "written through to the target")
        let permissions = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
        XCTAssertEqual(permissions, 0o600)
    }

    func testAReportThatCannotBeReadIsAHarnessError() {
        let out = directory.appendingPathComponent("out.csv")
        let failure = commandFailure(
            ["export", "--report", directory.appendingPathComponent("missing").path, "--format", "csv", "--out", out.path],
            registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 70)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing is written for a report not read")
    }

    func testAnOutThatIsTheReportOrCannotBeWrittenIsAUsageError() throws {
        let before = try Data(contentsOf: reportJSON)
        var failure = commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", reportJSON.path], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("is the report itself") ?? false, failure?.message ?? "")
        XCTAssertEqual(try Data(contentsOf: reportJSON), before, "the report is untouched")

        let nowhere = directory.appendingPathComponent("no/such/dir/out.csv").path
        failure = commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", nowhere], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("does not exist") ?? false, failure?.message ?? "")
    }

    func testAnOutThatCannotBeOpenedIsAHarnessError() {
        // A directory: its parent exists, so the command line is fine; the write is not.
        let failure = commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", directory.path], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 70)
    }

    func testAnInterruptedRunIsRefusedUnlessAllowed() throws {
        var report = try ReportLocation.report(at: reportJSON)
        report.interrupted = "SIGINT during pull"
        try ReportWriter(directory: directory).write(report)
        let out = directory.appendingPathComponent("out.csv").path
        XCTAssertEqual(commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", out], registry: ScenarioRegistry())?.status, 70)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertNil(commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", out, "--allow-interrupted"], registry: ScenarioRegistry()))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
    }

    func testScenarioChoosesWhatIsExportedAndNamesOnesTheReportLacks() throws {
        let out = directory.appendingPathComponent("out.csv")
        XCTAssertNil(commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", out.path, "--scenario", "pull"], registry: ScenarioRegistry()))
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8).split(separator: "\n").count, 2)
        let failure = commandFailure(["export", "--report", directory.path, "--format", "csv", "--out", out.path, "--scenario", "fleet"], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("--scenario fleet is not in the report (its scenarios: pull)") ?? false, failure?.message ?? "")
    }

    func testAnUnknownOrMissingFormatIsAUsageErrorNamingTheFormats() {
        var failure = commandFailure(["export", "--report", directory.path, "--format", "xml"], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("json-smaller-is-better") ?? false, failure?.message ?? "")
        failure = commandFailure(["export", "--report", directory.path], registry: ScenarioRegistry())
        XCTAssertEqual(failure?.status, 64)
        XCTAssertTrue(failure?.message.contains("--format") ?? false, failure?.message ?? "")
    }
}
