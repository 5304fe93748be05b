import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `segments-bench crash-child` process as the `crash` scenario sees it: started with its
/// arguments, its output lines read as they come (the cookie, the last durable number), and
/// killed with `SIGKILL`. Once it has exited, the rest of its output is read to its end before its
/// state is: a child's last lines may still be in the pipe then, and Foundation's readability
/// handler on Linux does not always deliver them. Used by the scenario's thread only.
final class CrashChildProcess {
    /// What the child said so far.
    struct Said: Sendable {
        /// Every cookie it said it tracks under, in order.
        var cookies: [String] = []
        var lastDurable: Int?
        var drained = false
        /// A partial line, waiting for its end.
        var pending: [UInt8] = []
    }

    /// How a child ended.
    enum Ending: Equatable, CustomStringConvertible {
        /// By the scenario's `SIGKILL`.
        case killed
        /// On its own, with this exit status.
        case exited(Int32)
        /// By another signal than the scenario's `SIGKILL`.
        case signalled(Int32)

        var description: String {
            switch self {
            case .killed: "killed"
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "ended by signal \(signal)"
            }
        }
    }

    private let process: Process
    private let output: FileHandle
    private let said = LockedBox(Said())

    /// Starts `executable` with `arguments`.
    init(executable: String, arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        let said = said
        // Read under the lock, so that the final read (``readRest()``) never interleaves with a
        // chunk this handler has taken but not parsed yet.
        output.fileHandleForReading.readabilityHandler = { handle in
            said.withLock { said in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                } else {
                    Self.parse(data, into: &said)
                }
            }
        }
        try process.run()
        self.process = process
        self.output = output.fileHandleForReading
    }

    private static func parse(_ data: Data, into said: inout Said) {
        said.pending += data
        var lineStart = said.pending.startIndex
        while let newline = said.pending[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            take(line: String(decoding: said.pending[lineStart..<newline], as: UTF8.self), into: &said)
            lineStart = said.pending.index(after: newline)
        }
        said.pending.removeSubrange(..<lineStart)
    }

    private static func take(line: String, into said: inout Said) {
        let parts = line.split(separator: " ", maxSplits: 1)
        switch (parts.first, parts.count) {
        case ("cookie", 2): said.cookies.append(String(parts[1]))
        case ("durable", 2): if let value = Int(parts[1]) { said.lastDurable = value }
        case ("drained", 1): said.drained = true
        default: break
        }
    }

    var state: Said { said.withLock { $0 } }

    /// Waits up to `seconds` for the child to say its cookie (its client has started); `false` if
    /// it did not, or ended first.
    func waitUntilStarted(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !state.cookies.isEmpty { return true }
            guard process.isRunning else {
                // Ended: what it printed may still be in the pipe.
                process.waitUntilExit()
                readRest()
                return !state.cookies.isEmpty
            }
            usleep(1_000)
        }
        return !state.cookies.isEmpty
    }

    /// Kills the child at once (no chance to stop cleanly) unless it has already ended, waits for
    /// it and for the end of its output, and says how it ended.
    @discardableResult
    func kill() -> Ending {
        let running = process.isRunning
        if running { sendKill(process.processIdentifier) }
        process.waitUntilExit()
        readRest()
        let status = process.terminationStatus
        switch process.terminationReason {
        case .uncaughtSignal: return running && status == SIGKILL ? .killed : .signalled(status)
        case .exit: return .exited(status)
        @unknown default: return .exited(status)
        }
    }

    /// Waits up to `seconds` for the child to exit, then for the end of its output; its status,
    /// or `nil` if it is still running (it is then killed).
    func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill()
            return nil
        }
        readRest()
        return process.terminationStatus
    }

    /// Reads what the exited child left in the pipe, to its end (the child holds the only writing
    /// end, so the read ends), and parses it. Called once the child has exited.
    private func readRest() {
        output.readabilityHandler = nil
        said.withLock { said in
            let rest = output.readDataToEndOfFile()
            if !rest.isEmpty { Self.parse(rest, into: &said) }
        }
    }
}

/// `SIGKILL` to `pid` (the system's `kill`, which ``CrashChildProcess/kill()`` hides inside the class).
private func sendKill(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}
