import Foundation

/// Where a report's `report.json` is, given what a user typed: the file itself or the report's
/// directory, as `check --report`, `merge` and `baseline update --from` all accept.
public enum ReportLocation {
    /// The `report.json` that `path` names. An existing directory, or a path that does not exist
    /// and does not end in `.json`, is read as a report directory; anything else as the file
    /// itself, so an error about a missing report names the path the user meant.
    public static func reportJSON(at path: String) -> URL {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists ? isDirectory.boolValue : !path.lowercased().hasSuffix(".json") {
            return URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent(ReportLayout.reportJSON)
        }
        return URL(fileURLWithPath: path)
    }

    /// The report in the file `url` names.
    /// - Throws: the file's read error, or a `DecodingError` for a file that is not a report this
    ///   version reads.
    public static func report(at url: URL) throws -> BenchReport {
        try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: url))
    }
}
