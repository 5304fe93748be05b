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
            (curl --fail --data-binary @- 'http://influx:8086/write?db=bench'). prometheus: text format for a \
            Pushgateway (curl --fail -X PUT --data-binary @- http://gateway:9091/metrics/job/segments-bench). csv: a \
            row per figure and per latency statistic, each with the run's start, revision and host. \
            json-smaller-is-better and json-bigger-is-better: github-action-benchmark's customSmallerIsBetter and \
            customBiggerIsBetter files; a figure that says no better direction is in neither. Latencies are named \
            as their .hgrm files, as --threshold names them. What a format cannot hold (a value that is not a \
            number in line protocol or JSON, a second value under one name) is left out with a line on standard \
            error. Exits 64 for a usage error (an --out in a missing directory, a --scenario the report lacks), 70 \
            when the report cannot be read, is of an interrupted run (unless --allow-interrupted), holds nothing \
            the format writes, or the file cannot be written.
            """)

    @Option(help: "The format to write.") var format: ExportFormat
    @Option(help: "Report to export: its report.json, or the report's directory.") var report: String = "Reports/latest/report.json"
    @Option(help: "File to write; - for standard output.") var out: String = "-"
    @Option(name: .customLong("scenario"), help: ArgumentHelp("Export only this scenario (repeatable); default: every one.", valueName: "name"))
    var scenarios: [String] = []
    @Flag(help: "Export the scenarios an interrupted run finished (refused otherwise: a partial run charted beside whole ones misleads).")
    var allowInterrupted = false

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out is empty: name a file, or - for standard output") }
        guard out != "-" else { return }
        if namesTheSameFile(out, ReportLocation.reportJSON(at: report).path) {
            throw ValidationError("--out \(out) is the report itself: the export would replace it; give another file")
        }
        let directory = URL(fileURLWithPath: out).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--out \(out): its directory \(directory) does not exist")
        }
    }

    func run() throws {
        let reportURL = ReportLocation.reportJSON(at: report)
        var loaded: BenchReport
        do {
            loaded = try ReportLocation.report(at: reportURL)
        } catch {
            throw harnessError("report unreadable: \(reportURL.path): \(describe(error))")
        }
        if let interrupted = loaded.interrupted {
            guard allowInterrupted else {
                throw harnessError("the report is of an interrupted run (\(interrupted)); --allow-interrupted exports the scenarios it finished")
            }
            standardError("warning: the report is of an interrupted run (\(interrupted)): it holds only the scenarios that finished")
        }
        if !scenarios.isEmpty {
            let held = loaded.scenarios.map(\.scenario)
            if let missing = scenarios.first(where: { !held.contains($0) }) {
                throw ValidationError("--scenario \(missing) is not in the report (its scenarios: \(held.joined(separator: ", ")))")
            }
            loaded.scenarios.removeAll { !scenarios.contains($0.scenario) }
        }
        let exported: ExportedReport
        do {
            exported = try format.render(loaded)
        } catch {
            throw harnessError("\(describe(error)) (\(reportURL.path), --format \(format.rawValue))")
        }
        do {
            try write(Data(exported.text.utf8))
        } catch {
            throw harnessError("\(out == "-" ? "standard output" : "--out \(out)") cannot be written: \(describe(error))")
        }
        for line in exported.notes { standardError("note: \(line)") }
    }

    /// Writes `data` to standard output, or into the file `out` names as a shell's `>` does: created
    /// or truncated, through a link to its target, into a pipe or device as it is (replacing the
    /// file instead would turn `/dev/null` into a plain file), keeping an existing file's permissions.
    private func write(_ data: Data) throws {
        guard out != "-" else { return try FileHandle.standardOutput.write(contentsOf: data) }
        let descriptor = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        do {
            try file.write(contentsOf: data)
        } catch {
            try? file.close()
            throw error
        }
        try file.close()
    }

    /// Prints `message` as a harness error and returns the exit status to throw (70).
    private func harnessError(_ message: String) -> ExitCode {
        standardError("harness error: \(message)")
        return ExitCode(ExitStatus.harnessError.rawValue)
    }

    private func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

extension ExportFormat: ExpressibleByArgument {}
