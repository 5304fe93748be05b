import Foundation
@testable import SegmentsBenchKit

/// Reports and fake `segments-bench` executables for the comparison tests.
enum CompareFixtures {
    /// A report of one scenario with the given figures (name → (value, unit)).
    static func report(scenario: String, figures: [(String, Double, String)]) -> BenchReport {
        BenchReport(
            machine: MachineInfo.current(), gitRevision: "test", startedAt: Date(timeIntervalSince1970: 0), command: "test",
            scenarios: [
                ScenarioResult(
                    scenario: scenario, summary: "", configuration: [:],
                    figures: figures.map { Figure(name: $0.0, value: $0.1, unit: $0.2, summary: "") },
                    allocationsMeasured: false)
            ])
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("compare-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes an executable shell script that behaves like `segments-bench` for `list --json`
    /// (one scenario, `scenario`) and `run SCENARIO … --out DIR …` (copies `report` into DIR as
    /// `report.json`), and returns its path. `failRuns` makes `run` exit 3 with a message on
    /// standard error.
    static func fakeBinary(
        in directory: URL, named name: String, scenario: String, report: BenchReport, failRuns: Bool = false
    ) throws -> String {
        let reportURL = directory.appendingPathComponent("\(name).report.json")
        try ReportWriter.makeJSONEncoder().encode(report).write(to: reportURL)
        let script = """
            #!/bin/sh
            if [ "$1" = "list" ]; then
              echo '[{"measures": "m", "name": "\(scenario)", "simulates": "s"}]'
              exit 0
            fi
            \(failRuns ? "echo 'scenario blew up' >&2; exit 3" : "")
            out=""
            while [ $# -gt 0 ]; do
              if [ "$1" = "--out" ]; then out="$2"; fi
              shift
            done
            mkdir -p "$out" && cp '\(reportURL.path)' "$out/report.json"
            echo '{}'
            """
        let url = directory.appendingPathComponent(name)
        try Data(script.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url.path
    }
}
