import Foundation

/// A `segments-bench` executable run as a subprocess: one build of a comparison.
///
/// Each call starts a process and blocks the calling thread until it exits or its time limit
/// passes (then it is terminated). Standard output and standard error go to files in the
/// directory the caller passes, never to pipes, so a chatty run cannot fill a pipe and stall.
public struct BenchBinary: Sendable, Hashable {
    /// Path of the executable.
    public var path: String
    /// Seconds a run may take before it is terminated.
    public var timeout: Double

    /// A binary at `path`.
    public init(path: String, timeout: Double = 900) {
        self.path = path
        self.timeout = timeout
    }

    /// Throws ``CompareError/binaryMissing(path:)`` unless `path` is an executable file.
    public func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isExecutableFile(atPath: path)
        else { throw CompareError.binaryMissing(path: path) }
    }

    /// The scenario names the binary knows (`list --json`).
    ///
    /// - Parameter directory: an existing directory for the process's output files.
    /// - Throws: ``CompareError`` when the binary fails or prints something else.
    public func scenarioNames(scratch directory: URL, children: BenchChildren = .shared) throws -> [String] {
        let output = try execute(["list", "--json"], output: directory.appendingPathComponent("list"), children: children)
        guard let entries = try? JSONSerialization.jsonObject(with: output) as? [[String: Any]] else {
            throw CompareError.outputUnreadable(path: "\(path) list --json", reason: "not a JSON array of scenarios")
        }
        return entries.compactMap { $0["name"] as? String }
    }

    /// Runs `scenario` once (`run SCENARIO [--quick] --out DIR --json`) and reads its `report.json`.
    ///
    /// - Parameters:
    ///   - directory: a directory of its own for this run (created if missing); the report goes
    ///     to `directory/report/`, the process's output next to it.
    ///   - children: where the run's process is recorded while it runs, so that it ends with the
    ///     command (``BenchChildren/endAll()``).
    /// - Throws: ``CompareError`` when the run fails, times out, writes no readable report, or was
    ///   ended or refused by ``BenchChildren/endAll()`` (``CompareError/interrupted``).
    public func run(scenario: String, quick: Bool, in directory: URL, children: BenchChildren = .shared) throws -> BenchReport {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let reportDirectory = directory.appendingPathComponent("report", isDirectory: true)
        let arguments = ["run", scenario] + (quick ? ["--quick"] : []) + ["--out", reportDirectory.path, "--json"]
        _ = try execute(arguments, output: directory.appendingPathComponent("run"), children: children)
        let reportURL = reportDirectory.appendingPathComponent(ReportLayout.reportJSON)
        do {
            return try ReportLocation.report(at: reportURL)
        } catch {
            throw CompareError.outputUnreadable(path: reportURL.path, reason: "\(error)")
        }
    }

    /// Runs the binary with `arguments`; its standard output goes to `<output>.stdout` (and is
    /// returned), its standard error to `<output>.stderr`.
    private func execute(_ arguments: [String], output: URL, children: BenchChildren) throws -> Data {
        try validate()
        if children.isEnded { throw CompareError.interrupted }
        let command = ([path] + arguments).joined(separator: " ")
        let stdoutURL = URL(fileURLWithPath: output.path + ".stdout")
        let stderrURL = URL(fileURLWithPath: output.path + ".stderr")
        for url in [stdoutURL, stderrURL] {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CompareError.outputUnreadable(path: url.path, reason: "cannot create the file")
            }
        }
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw CompareError.runFailed(command: command, status: -1, standardError: "\(error)")
        }
        let pid = process.processIdentifier
        guard children.adopt(pid) else {
            // Ended between the look above and the start.
            process.terminate()
            exited.wait()
            throw CompareError.interrupted
        }
        defer { children.release(pid) }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 5) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            throw CompareError.runTimedOut(command: command, seconds: timeout)
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal, children.isEnded { throw CompareError.interrupted }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw CompareError.runFailed(
                command: command, status: process.terminationStatus, standardError: Self.tail(of: stderrURL))
        }
        do {
            return try Data(contentsOf: stdoutURL)
        } catch {
            throw CompareError.outputUnreadable(path: stdoutURL.path, reason: "\(error)")
        }
    }

    /// The last 20 lines of a file, for an error message.
    private static func tail(of url: URL) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.suffix(20).joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
