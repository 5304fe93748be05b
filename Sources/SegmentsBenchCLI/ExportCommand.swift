import ArgumentParser
import Foundation
import SegmentsBenchKit

/// `segments-bench export`: a written report's figures and latencies in another tool's format.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a report's figures and latencies for another tool: InfluxDB, a Prometheus Pushgateway, CSV, or github-action-benchmark.",
        discussion: """
            influx: line protocol, a point per figure and per latency, stamped with the run's start \
            (curl --data-binary @- 'http://influx:8086/write?db=bench'). prometheus: text format for a \
            Pushgateway (curl --data-binary @- http://gateway:9091/metrics/job/segments-bench). csv: a row per \
            figure and per latency statistic, each with the run's start, revision and host. \
            json-smaller-is-better and json-bigger-is-better: github-action-benchmark's customSmallerIsBetter \
            and customBiggerIsBetter files. Latencies are named as their .hgrm files and --threshold name them. \
            A value a format cannot hold (not a number in line protocol or JSON) is left out with a line on \
            standard error. Exits 64 for a usage error (an --out that cannot be written), 70 when the report \
            cannot be read.
            """)

    @Option(help: "The format to write.") var format: ExportFormat
    @Option(help: "Report to export: its report.json, or the report's directory.") var report: String = "Reports/latest/report.json"
    @Option(help: "File to write; - for standard output.") var out: String = "-"

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out is empty: name a file, or - for standard output") }
        if out != "-", namesTheSameFile(out, ReportLocation.reportJSON(at: report).path) {
            throw ValidationError("--out \(out) is the report itself: the export would replace it; give another file")
        }
    }

    func run() throws {
        let reportURL = ReportLocation.reportJSON(at: report)
        let loaded: BenchReport
        let exported: ExportedReport
        do {
            loaded = try ReportWriter.makeJSONDecoder().decode(BenchReport.self, from: Data(contentsOf: reportURL))
            exported = try format.render(loaded)
        } catch {
            standardError("harness error: report unreadable: \(reportURL.path): \(describe(error))")
            throw ExitCode(ExitStatus.harnessError.rawValue)
        }
        if out == "-" {
            FileHandle.standardOutput.write(Data(exported.text.utf8))
        } else {
            do {
                try Data(exported.text.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw ValidationError("--out \(out) cannot be written: \(describe(error))")
            }
        }
        for line in exported.leftOut { standardError("note: left out \(line)") }
        if let interrupted = loaded.interrupted {
            standardError("warning: the report is of an interrupted run (\(interrupted)): it holds only the scenarios that finished")
        }
    }

    private func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

extension ExportFormat: ExpressibleByArgument {}
