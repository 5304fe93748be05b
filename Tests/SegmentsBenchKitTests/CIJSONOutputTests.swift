import Foundation
import SegmentsBenchKit
import XCTest

/// `ci --json` prints one document of one shape, `{"report", "gate"}`, whatever the verdict: a
/// tool reading `.gate.passed` must not meet a bare array when the baseline cannot be read.
final class CIJSONOutputTests: XCTestCase {
    func testAnUnreadableBaselinePrintsTheGateWithoutAReport() throws {
        let bench = try BuiltBench.url()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ci-json-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = bench
        process.arguments = ["ci", "--json", "--baseline", out.path + "/missing.json", "--out", out.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 70)
        let document = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: printed) as? [String: Any], String(decoding: printed, as: UTF8.self))
        let gate = try XCTUnwrap(document["gate"] as? [String: Any], "\(document)")
        XCTAssertEqual(gate["passed"] as? Bool, false)
        XCTAssertEqual(gate["exitCode"] as? Int, 70)
        XCTAssertEqual(gate["verdict"] as? String, "harness-error")
        let errors = try XCTUnwrap(gate["harnessErrors"] as? [String])
        XCTAssertTrue(errors.contains { $0.contains("missing.json") }, "\(errors)")
        XCTAssertNil(document["report"], "nothing ran")
        let decoded = try ReportWriter.makeJSONDecoder().decode(GatedReport.self, from: printed)
        XCTAssertNil(decoded.report)
    }

    /// The document without a report reads back as one.
    func testAGatedReportWithoutAReportRoundTrips() throws {
        let check = GateCheck(report: nil, unreadableBaseline: "b.json: missing")
        let text = try GatedReport(report: nil, check: check).jsonText()
        let decoded = try ReportWriter.makeJSONDecoder().decode(GatedReport.self, from: Data(text.utf8))
        XCTAssertNil(decoded.report)
        XCTAssertEqual(decoded.gate.exitCode, 70)
        XCTAssertFalse(text.contains("\"report\""), text)
    }
}
