import Foundation
import SegmentsBenchKit
import XCTest

/// `check --report`, `merge` and `baseline update --from` read the same paths the same way.
final class ReportLocationTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("report-location-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testAnExistingDirectoryIsReadAsTheReportsDirectory() {
        XCTAssertEqual(ReportLocation.reportJSON(at: directory.path).path, directory.appendingPathComponent("report.json").path)
    }

    func testAnExistingFileIsTheReportItselfWhateverItsName() throws {
        let file = directory.appendingPathComponent("nightly-report")
        try Data("{}".utf8).write(to: file)
        XCTAssertEqual(ReportLocation.reportJSON(at: file.path).path, file.path)
    }

    func testAMissingPathNamesAJSONFileOrADirectoryByItsEnding() {
        let missingFile = directory.appendingPathComponent("gone/report.json").path
        XCTAssertEqual(ReportLocation.reportJSON(at: missingFile).path, missingFile,
                       "a missing report.json is named as typed, not as report.json/report.json")
        let missingDirectory = directory.appendingPathComponent("gone-run").path
        XCTAssertEqual(ReportLocation.reportJSON(at: missingDirectory).path, missingDirectory + "/report.json")
    }
}
