import Foundation
import SegmentsBenchKit
import XCTest

/// `ci --json` prints one document of one shape, `{"report", "gate"}`, whatever the verdict: a
/// tool reading `.gate.passed` must not meet a bare array when the baseline cannot be read.
final class CIJSONOutputTests: XCTestCase {
    /// The segments-bench that `swift build --build-tests` built beside this test bundle.
    private var bench: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("segments-bench")
    }

    func testAnUnreadableBaselinePrintsTheGateWithoutAReport() throws {
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw XCTSkip("no segments-bench beside the test bundle at \(bench.path)")
        }
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
}
