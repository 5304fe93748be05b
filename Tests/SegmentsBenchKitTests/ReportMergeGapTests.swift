import Foundation
@testable import SegmentsBenchKit
import XCTest

/// `merge` never lets one host's figure stand in for another host's that is missing, and never
/// joins reports of different tool versions, whose figures may not mean the same.
final class ReportMergeGapTests: XCTestCase {
    private func report(host: String, figures: [Figure], allocationsMeasured: Bool = true, toolVersion: String = "1.0") -> BenchReport {
        BenchReport(
            machine: MachineInfo(hostname: host, cores: 2, memoryBytes: 1 << 30, cpuModel: "cpu", kernel: "k", swiftVersion: "6",
                                 loadAverage: "0.1", jemalloc: "unavailable"),
            gitRevision: "abc", startedAt: Date(timeIntervalSince1970: 1_700_000_000), command: "test",
            scenarios: [ScenarioResult(scenario: "storm", summary: "s", configuration: [:], figures: figures,
                                       allocationsMeasured: allocationsMeasured)],
            toolVersion: toolVersion)
    }

    private let lost = Figure(name: "storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: "lost")
    private let ratio = Figure(name: "storm.p50ToFloor", value: 1, unit: "ratio", gate: .latencyRatio, summary: "ratio")
    private let allocations = Figure(name: "storm.allocsPerEvent", value: 0, unit: "allocs/op", gate: .allocations, summary: "allocs")

    func testAGatedFigureMissingOnOneHostFailsTheMergedGate() throws {
        let a = report(host: "a", figures: [lost, ratio])
        let b = report(host: "b", figures: [ratio])
        let merged = try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")
        let check = GateCheck(report: merged, baseline: Baseline(from: a))
        XCTAssertEqual(check.exitStatus, .harnessError, check.renderTable())
        XCTAssertTrue(merged.scenarios[0].notes.contains { $0.contains("storm.lostEvents") && $0.contains("b") }, "\(merged.scenarios[0].notes)")
    }

    func testAnAllocationCountAHostCouldNotMeasureIsTakenFromTheOthers() throws {
        let a = report(host: "a", figures: [lost, allocations])
        let b = report(host: "b", figures: [lost], allocationsMeasured: false)
        let merged = try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")
        XCTAssertEqual(merged.scenarios[0].figure("storm.allocsPerEvent")?.value, 0)
        XCTAssertEqual(GateCheck(report: merged, baseline: Baseline(from: a)).exitStatus, .pass)
    }

    /// The same report given twice (one directory named twice, or a copy) would count its events
    /// and samples twice: refused, naming the inputs.
    func testTheSameRunGivenTwiceIsNotMerged() {
        let a = report(host: "a", figures: [lost])
        let b = report(host: "b", figures: [lost])
        XCTAssertThrowsError(try ReportMerge.merge(
            [(host: "a", report: a), (host: "b", report: b), (host: "a (copy)", report: a)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .sameRunTwice(["a", "a (copy)"]))
        }
        XCTAssertNoThrow(try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge"))
    }

    /// A merged report given with one of the runs it holds (`merge a b --out ab`, then
    /// `merge ab b`) would count that run twice: refused, even after the merged report was written
    /// and read back.
    func testAMergedReportIsNotMergedWithARunItHolds() throws {
        let a = report(host: "a", figures: [lost, ratio])
        var b = report(host: "b", figures: [lost, ratio])
        b.scenarios[0].figures[1].value = 2
        let c = report(host: "c", figures: [lost, ratio])
        let ab = try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge a b")
        let read = try JSONDecoder().decode(BenchReport.self, from: JSONEncoder().encode(ab))
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a + b", report: read), (host: "b", report: b)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .sameRunTwice(["a + b", "b"]))
        }
        let abc = try ReportMerge.merge([(host: "a + b", report: read), (host: "c", report: c)], command: "merge")
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a + b + c", report: abc), (host: "a + b", report: ab)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .sameRunTwice(["a + b + c", "a + b"]))
        }
    }

    /// Hosts launched together from one image can share a hostname, a command and a start second;
    /// their runs measured different things, so they are merged.
    func testRunsOfHostsThatShareANameAndAStartSecondAreMerged() throws {
        let first = report(host: "pod", figures: [lost, ratio])
        var second = report(host: "pod", figures: [lost, ratio])
        second.scenarios[0].figures[1].value = 1.5
        let merged = try ReportMerge.merge([(host: "pod (a)", report: first), (host: "pod (b)", report: second)], command: "merge")
        XCTAssertEqual(merged.scenarios[0].figure("storm.p50ToFloor")?.value, 1.5)
    }

    func testReportsOfDifferentToolVersionsAreNotMerged() {
        let a = report(host: "a", figures: [lost], toolVersion: "1.0")
        let b = report(host: "b", figures: [lost], toolVersion: "1.1")
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .toolVersionsDiffer(["a: 1.0", "b: 1.1"]))
        }
    }
}
