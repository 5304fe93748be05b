import Foundation
import SegmentsBenchKit
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `gate.json`, `gate-junit.xml` and `gate-summary.md`: what they hold and that tools can read them.
final class GateVerdictFilesTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func report(_ figures: [Figure]) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "abc123", startedAt: Date(), command: "segments-bench ci",
            scenarios: [ScenarioResult(scenario: "tracking-storm", summary: "", configuration: [:], figures: figures,
                                       allocationsMeasured: true)])
    }

    private let baselineFigures = [
        Figure(name: "tracking-storm.allocsPerEvent", value: 2, unit: "allocs/op", gate: .allocations, summary: ""),
        Figure(name: "tracking-storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: ""),
        Figure(name: "tracking-storm.ratio<&\"'>", value: 4, unit: "ratio", gate: .latencyRatio, summary: ""),
        Figure(name: "tracking-storm.unchanged", value: 1, unit: "ratio", gate: .latencyRatio, summary: ""),
        Figure(name: "tracking-storm.better", value: 10, unit: "allocs/op", gate: .allocations, summary: ""),
    ]

    /// A regression, a violation, a missing figure, an improvement and a pass.
    private func mixedCheck() -> (GateCheck, BenchReport) {
        var figures = baselineFigures
        figures[0].value = 5  // regressed
        figures[1].value = 1  // violated
        figures.remove(at: 2)  // missing
        figures[3].value = 1  // improved (was 10)
        let report = report(figures)
        return (GateCheck(report: report, baseline: Baseline(from: self.report(baselineFigures))), report)
    }

    private func write(_ check: GateCheck, _ report: BenchReport?) throws -> [String: Data] {
        let urls = try GateVerdictFiles(directory: directory).write(check, report: report, baselinePath: "Reports/baseline.json")
        XCTAssertEqual(urls.map(\.lastPathComponent), ["gate.json", "gate-junit.xml", "gate-summary.md"])
        return Dictionary(uniqueKeysWithValues: try urls.map { ($0.lastPathComponent, try Data(contentsOf: $0)) })
    }

    func testGateJSONHoldsEveryRowTheVerdictAndTheBaselinesOrigin() throws {
        let (check, report) = mixedCheck()
        let files = try write(check, report)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(files["gate.json"])) as? [String: Any])
        XCTAssertEqual(object["verdict"] as? String, "harness-error")
        XCTAssertEqual(object["exitCode"] as? Int, 70)
        XCTAssertEqual(object["passed"] as? Bool, false)
        XCTAssertEqual(object["baselinePath"] as? String, "Reports/baseline.json")
        let baseline = try XCTUnwrap(object["baseline"] as? [String: Any])
        XCTAssertEqual(baseline["gitRevision"] as? String, "abc123")
        XCTAssertNotNil(baseline["machine"])
        XCTAssertNotNil(object["warnings"] as? [String])
        let rows = try XCTUnwrap(object["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.count, baselineFigures.count)
        let regressed = try XCTUnwrap(rows.first { $0["name"] as? String == "tracking-storm.allocsPerEvent" })
        XCTAssertEqual(regressed["verdict"] as? String, "regressed")
        XCTAssertEqual(regressed["unit"] as? String, "allocs/op")
        XCTAssertEqual(regressed["baseline"] as? Double, 2)
        XCTAssertEqual(regressed["now"] as? Double, 5)
        XCTAssertEqual(try XCTUnwrap(regressed["limit"] as? Double), 2.6, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(regressed["change"] as? Double), 1.5, accuracy: 1e-9)
        XCTAssertNotNil(regressed["rule"] as? String)
        XCTAssertEqual(Set(rows.compactMap { $0["verdict"] as? String }), ["regressed", "violated", "missing", "pass", "improved"])

        let decoded = try ReportWriter.makeJSONDecoder().decode(GateDocument.self, from: XCTUnwrap(files["gate.json"]))
        XCTAssertEqual(decoded.exitCode, 70)
    }

    func testGateJSONWritesANaNValueAsAString() throws {
        var figures = baselineFigures
        figures[0].value = .nan
        let report = report(figures)
        let check = GateCheck(report: report, baseline: Baseline(from: self.report(baselineFigures)))
        let files = try write(check, report)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(files["gate.json"])) as? [String: Any])
        let rows = try XCTUnwrap(object["rows"] as? [[String: Any]])
        let invalid = try XCTUnwrap(rows.first { $0["name"] as? String == "tracking-storm.allocsPerEvent" })
        XCTAssertEqual(invalid["verdict"] as? String, "invalid")
        XCTAssertEqual(invalid["now"] as? String, "NaN")
    }

    /// The JUnit file, parsed: test cases and their failure, skipped and error children.
    private final class JUnitReader: NSObject, XMLParserDelegate {
        var suites: [[String: String]] = []
        var cases: [(name: String, child: String?)] = []
        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch element {
            case "testsuite": suites.append(attributes)
            case "testcase": cases.append((attributes["name"] ?? "", nil))
            case "failure", "skipped", "error": cases[cases.count - 1].child = element
            default: break
            }
        }
    }

    private func readJUnit(_ data: Data) throws -> JUnitReader {
        let parser = XMLParser(data: data)
        let reader = JUnitReader()
        parser.delegate = reader
        XCTAssertTrue(parser.parse(), "gate-junit.xml is well-formed XML: \(String(describing: parser.parserError))")
        return reader
    }

    func testJUnitHasOneTestCasePerFigureWithFailuresForRegressedViolatedAndMissing() throws {
        let (check, report) = mixedCheck()
        let reader = try readJUnit(XCTUnwrap(try write(check, report)["gate-junit.xml"]))
        let children = Dictionary(uniqueKeysWithValues: reader.cases.map { ($0.name, $0.child ?? "passed") })
        XCTAssertEqual(children["tracking-storm.allocsPerEvent"], "failure")
        XCTAssertEqual(children["tracking-storm.lostEvents"], "failure")
        XCTAssertEqual(children["tracking-storm.ratio<&\"'>"], "failure", "the escaped name reads back as written")
        XCTAssertEqual(children["tracking-storm.unchanged"], "passed")
        XCTAssertEqual(children["tracking-storm.better"], "passed")
        XCTAssertEqual(reader.suites.first?["tests"], "5")
        XCTAssertEqual(reader.suites.first?["failures"], "3")
    }

    func testJUnitSkipsFiguresOfScenariosThatDidNotRunAndListsHarnessErrors() throws {
        let baseline = Baseline(from: BenchReport(
            machine: MachineInfo.current(), gitRevision: "t", startedAt: Date(), command: "t",
            scenarios: [ScenarioResult(scenario: "pull", summary: "", configuration: [:],
                                       figures: [Figure(name: "pull.failures", value: 0, unit: "count", gate: .zero, summary: "")],
                                       allocationsMeasured: true)]))
        let report = report([Figure(name: "tracking-storm.scenarioFailed", value: 1, unit: "count", gate: .zero, summary: "threw <x>")])
        let check = GateCheck(report: report, baseline: baseline)
        let reader = try readJUnit(XCTUnwrap(try write(check, report)["gate-junit.xml"]))
        XCTAssertEqual(reader.cases.first { $0.name == "pull.failures" }?.child, "skipped")
        XCTAssertTrue(reader.cases.contains { $0.child == "error" })
        XCTAssertEqual(reader.suites.first?["errors"], "1")
    }

    func testJUnitOfAnUnreadableBaselineIsOneError() throws {
        let check = GateCheck(report: nil, unreadableBaseline: "/nonexistent: no such file")
        let reader = try readJUnit(XCTUnwrap(try write(check, nil)["gate-junit.xml"]))
        XCTAssertEqual(reader.cases.count, 1)
        XCTAssertEqual(reader.cases.first?.child, "error")
    }

    func testTheSummaryShowsTheVerdictAndOnlyTheRowsThatChanged() throws {
        let (check, report) = mixedCheck()
        let text = String(decoding: try XCTUnwrap(try write(check, report)["gate-summary.md"]), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "## segments-bench gate: ❌ harness-error (exit 70)")
        XCTAssertTrue(text.contains("| Figure | Verdict | Baseline | Now | Limit | Change | Rule |"))
        for shown in ["tracking-storm.allocsPerEvent", "tracking-storm.lostEvents", "tracking-storm.better"] {
            XCTAssertTrue(lines.contains { $0.hasPrefix("| `\(shown)`") }, shown)
        }
        XCTAssertTrue(lines.contains { $0.contains("missing") && $0.contains("tracking-storm.ratio") })
        XCTAssertFalse(text.contains("tracking-storm.unchanged"), "a pass is not listed")
        let table = lines.filter { $0.hasPrefix("| `") }
        XCTAssertEqual(table.count, 4)
    }

    func testThePassingSummaryHasNoTable() throws {
        let report = report(baselineFigures)
        let check = GateCheck(report: report, baseline: Baseline(from: report))
        let text = String(decoding: try XCTUnwrap(try write(check, report)["gate-summary.md"]), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("## segments-bench gate: ✅ pass (exit 0)"))
        XCTAssertFalse(text.contains("| Figure |"))
    }
}
