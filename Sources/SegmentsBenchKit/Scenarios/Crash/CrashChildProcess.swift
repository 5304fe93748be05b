import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `segments-bench crash-child` process as the `crash` scenario sees it: started with its
/// arguments, its output lines read as they come (the cookie, the last durable number), and
/// killed with `SIGKILL`. Used by the scenario's thread only.
final class CrashChildProcess {
    /// What the child said so far.
    struct Said: Sendable {
        /// Every cookie it said it tracks under, in order.
        var cookies: [String] = []
        var lastDurable: Int?
        var drained = false
        /// A partial line, waiting for its end.
        var pending = ""
    }

    private let process: Process
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
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            said.withLock { said in
                said.pending += String(decoding: data, as: UTF8.self)
                while let newline = said.pending.firstIndex(of: "\n") {
                    let line = said.pending[..<newline]
                    said.pending = String(said.pending[said.pending.index(after: newline)...])
                    let parts = line.split(separator: " ", maxSplits: 1)
                    switch (parts.first, parts.count) {
                    case ("cookie", 2): said.cookies.append(String(parts[1]))
                    case ("durable", 2): if let value = Int(parts[1]) { said.lastDurable = value }
                    case ("drained", 1): said.drained = true
                    default: break
                    }
                }
            }
        }
        try process.run()
        self.process = process
    }

    var state: Said { said.withLock { $0 } }

    /// Kills the child at once (no chance to stop cleanly) and waits for it to end.
    func kill() {
        sendKill(process.processIdentifier)
        process.waitUntilExit()
    }

    /// Waits up to `seconds` for the child to exit; its status, or `nil` if it is still running
    /// (it is then killed).
    func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            kill()
            return nil
        }
        return process.terminationStatus
    }
}

/// `SIGKILL` to `pid` (the system's `kill`, which ``CrashChildProcess/kill()`` hides inside the class).
private func sendKill(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}
