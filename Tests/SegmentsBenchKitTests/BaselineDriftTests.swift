import Foundation
import SegmentsBenchKit
import XCTest

/// `check` warns when the run differs from the baseline's run in what it does not gate: the
/// machine, a scenario's configuration, the tool version. A warning never fails the gate.
final class BaselineDriftTests: XCTestCase {
    private static let machine = MachineInfo(
        hostname: "ci-1", cores: 2, memoryBytes: 8 << 30, cpuModel: "AMD EPYC (family 25, model 1, stepping 1)",
        kernel: "6.1.0", swiftVersion: "6.3+", loadAverage: "0.1 0.1 0.1", jemalloc: "5.3.0")

    private func report(machine: MachineInfo = machine, quick: Bool = true, toolVersion: String = ToolVersion.current) -> BenchReport {
        BenchReport(
            machine: machine, gitRevision: "test", startedAt: Date(), command: "test",
            scenarios: [ScenarioResult(
                scenario: "tracking-storm", summary: "", configuration: ["quick": "\(quick)", "seed": "1", "transport": "memory"],
                figures: [Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: "")],
                allocationsMeasured: true)],
            toolVersion: toolVersion)
    }

    func testTheSameMachineConfigurationAndVersionGiveNoWarning() {
        var machine = Self.machine
        machine.loadAverage = "1.9 1.5 1.2"  // varies from run to run: not compared
        let check = GateCheck(report: report(machine: machine), baseline: Baseline(from: report()))
        XCTAssertEqual(check.warnings, [])
    }

    func testAnotherMachineIsAWarningNotAFailure() {
        var machine = Self.machine
        machine.cpuModel = "AMD EPYC (family 26, model 2, stepping 1)"
        let check = GateCheck(report: report(machine: machine), baseline: Baseline(from: report()))
        XCTAssertEqual(check.warnings.count, 1)
        XCTAssertTrue(check.warnings[0].contains("machine differs"))
        XCTAssertTrue(check.warnings[0].contains("family 26"))
        XCTAssertEqual(check.exitStatus, .pass)
        XCTAssertTrue(check.renderTable().contains("warning: machine differs"))
    }

    func testAnotherConfigurationIsAWarning() {
        let check = GateCheck(report: report(quick: false), baseline: Baseline(from: report()))
        XCTAssertEqual(check.warnings, ["configuration of tracking-storm differs from the baseline's: quick \"true\" → \"false\""])
        XCTAssertEqual(check.exitStatus, .pass)
    }

    func testAnotherToolVersionIsAWarning() {
        let check = GateCheck(report: report(toolVersion: "99.0.0"), baseline: Baseline(from: report()))
        XCTAssertEqual(check.warnings.count, 1)
        XCTAssertTrue(check.warnings[0].contains("tool version differs"))
        XCTAssertTrue(check.warnings[0].contains("99.0.0"))
    }

    func testABaselineThatRecordsNeitherVersionNorConfigurationSaysSo() throws {
        var baseline = Baseline(from: report())
        baseline.toolVersion = nil
        baseline.configuration = nil
        let check = GateCheck(report: report(), baseline: baseline)
        XCTAssertEqual(check.warnings.count, 2)
        XCTAssertTrue(check.warnings.allSatisfy { $0.contains("records no") })
        XCTAssertEqual(check.exitStatus, .pass)
    }
}
