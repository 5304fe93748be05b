import ArgumentParser
import Foundation
import SegmentsBenchKit

/// `segments-bench merge DIR… --out DIR`: one report from the reports of several machines.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of several machines into one report (report.json, summary.md, index.html, .hgrm, .hlog).",
        discussion: """
            Each DIR holds a report.json (or name the report.json itself). Latency histograms are added exactly and \
            each host's per-second histograms are kept, tagged with its host, in the interval logs. Counts and rates \
            are summed; correctness counters fail when any host's does; other figures (ratios, latencies, allocations) \
            take the worst host's value, never an average, with every host's value and their spread in the notes. \
            A gated figure missing on a host that ran its scenario is merged as not a number, which the gate fails \
            (an allocation count is excused on a host without jemalloc). \
            The merged report can be checked against a baseline with `segments-bench check --report OUT/report.json`. \
            A host's interrupted run leaves the merged report interrupted, which the gate refuses. \
            Exits 70 when a report cannot be read, the reports come from different segments-bench versions, one run \
            is given twice (the same machine, start time, command and figures), a report holds a scenario, figure or \
            latency twice, a latency has no recorded histogram or one that disagrees with its count, a latency added \
            over the hosts passes 2^64 samples or ns, or the merged one cannot be written.
            """)

    @Argument(help: "Report directories (or report.json files), one per machine.") var reports: [String]
    @Option(help: "Directory for the merged report.") var out: String

    func validate() throws {
        if reports.isEmpty { throw ValidationError("give at least one report directory") }
        for path in reports where namesTheSameFile(out, Self.directory(of: path)) {
            throw ValidationError("--out \(out) is one of the reports merged (\(path)): the merge would replace it; give another directory")
        }
    }

    func run() throws {
        let directory = try reportDirectory(out)
        do {
            var loaded: [BenchReport] = []
            for path in reports {
                loaded.append(try Self.load(path))
            }
            let hosts = ReportMerge.hostNames(of: loaded, directories: reports.map(Self.directory(of:)))
            let command = (["segments-bench", "merge"] + reports + ["--out", out]).joined(separator: " ")
            let inputs = Array(zip(hosts, loaded)).map { (host: $0.0, report: $0.1) }
            let merged = try ReportMerge.merge(inputs, command: command)
            try ReportWriter(directory: directory).write(merged)
            for difference in ReportMerge.configurationDifferences(inputs) {
                FileHandle.standardError.write(Data("warning: the hosts ran with different options: \(difference)\n".utf8))
            }
            print("merged \(loaded.count) report\(loaded.count == 1 ? "" : "s") (\(hosts.joined(separator: ", "))) into \(out)")
        } catch {
            FileHandle.standardError.write(Data("\(describe(error))\n".utf8))
            throw ExitCode(ExitStatus.harnessError.rawValue)
        }
    }

    /// The report at `path`: the file itself when it names one, else `path/report.json`.
    static func load(_ path: String) throws -> BenchReport {
        let url = ReportLocation.reportJSON(at: path)
        do {
            return try ReportLocation.report(at: url)
        } catch {
            throw MergeError.unreadable(path: url.path, reason: describe(error))
        }
    }

    static func directory(of path: String) -> String {
        ReportLocation.reportJSON(at: path).deletingLastPathComponent().path
    }
}
