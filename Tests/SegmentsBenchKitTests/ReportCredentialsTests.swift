import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import SegmentsMockServer
import XCTest

/// A run against a target records the command it ran, never the credentials given on it: reports
/// are shared, committed (a baseline) and kept on volumes many pods write.
final class ReportCredentialsTests: XCTestCase {
    func testNoFileOfTheReportHoldsTheAuthorizationAndTheCommandIsTheOneRun() throws {
        let secret = "s3cr3t-\(UUID().uuidString)"
        let backend = SegmentsBackend(projects: [MockProject(token: "p", apiKey: secret)])
        let server = SegmentsMockHTTPServer(backend: backend)
        try runBlocking { try await server.start() }
        defer { try? runBlocking { try await server.stop() } }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }

        try SegmentsBenchCLI.run(
            ["run", "pull", "--quick", "--duration", "0.2", "--target", server.baseURL.absoluteString, "--project-token", "p",
             "--authorization", "token:\(secret)", "--out", out.path],
            registry: ScenarioRegistry())

        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: out.path)?.allObjects as? [String])
        XCTAssertFalse(files.isEmpty)
        for file in files {
            guard let data = FileManager.default.contents(atPath: out.appendingPathComponent(file).path) else { continue }
            XCTAssertFalse(String(decoding: data, as: UTF8.self).contains(secret), "\(file) holds the authorization secret")
        }
        let report = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: out.appendingPathComponent("report.json")))
        XCTAssertTrue(report.command.hasPrefix("segments-bench run pull --quick"), report.command)
        XCTAssertTrue(report.command.contains("--authorization <redacted>"), report.command)
    }
}
