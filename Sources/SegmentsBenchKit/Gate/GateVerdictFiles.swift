import Foundation

/// Writes the gate's verdict next to the report: `gate.json` (``GateDocument``), `gate-junit.xml`
/// (``GateJUnit``) and `gate-summary.md` (``GateSummaryMarkdown``).
///
/// ```swift
/// try GateVerdictFiles(directory: URL(fileURLWithPath: "Reports/latest"))
///     .write(check, report: report, baselinePath: "Reports/baseline.json")
/// ```
///
/// The three files are rendered before the first is written, and each is replaced atomically. They
/// are not in the report's manifest, so writing a new report leaves them until the next verdict.
public struct GateVerdictFiles: Sendable {
    /// `gate.json`.
    public static let json = "gate.json"
    /// `gate-junit.xml`.
    public static let junit = "gate-junit.xml"
    /// `gate-summary.md`.
    public static let summary = "gate-summary.md"

    /// Where the files go; created if missing.
    public let directory: URL

    /// A writer into `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// Removes the three files of an earlier verdict, if any, so that a run that ends before its
    /// verdict leaves none behind for a CI system to read as this run's.
    ///
    /// - Throws: file system errors other than a file that is not there.
    public func removeEarlierVerdict() throws {
        for name in [Self.json, Self.junit, Self.summary] {
            do {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            } catch let error as CocoaError where error.code == .fileNoSuchFile {
                continue
            }
        }
    }

    /// Writes the three files for `check`, made on `report` (`nil` when it could not be read) with
    /// the baseline at `baselinePath`, and returns their URLs.
    ///
    /// - Throws: encoding errors (before anything is written) and file system errors.
    @discardableResult
    public func write(_ check: GateCheck, report: BenchReport?, baselinePath: String?) throws -> [URL] {
        let document = GateDocument(check: check, report: report, baselinePath: baselinePath)
        let files: [(String, Data)] = [
            (Self.json, try ReportWriter.makeJSONEncoder().encode(document)),
            (Self.junit, Data(GateJUnit.render(check).utf8)),
            (Self.summary, Data(GateSummaryMarkdown.render(check).utf8)),
        ]
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try files.map { name, contents in
            let url = directory.appendingPathComponent(name)
            try contents.write(to: url, options: .atomic)
            return url
        }
    }
}
