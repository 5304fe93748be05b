import Foundation

/// The machine a report was measured on.
public struct MachineInfo: Codable, Sendable, Hashable {
    public var hostname: String
    public var cores: Int
    public var memoryBytes: UInt64
    public var cpuModel: String
    public var kernel: String
    public var swiftVersion: String
    /// Load average when the run started (the machine is shared; read figures as ratios).
    public var loadAverage: String
    /// jemalloc version, or `unavailable`.
    public var jemalloc: String

    /// Reads the current machine.
    public static func current() -> MachineInfo {
        let info = ProcessInfo.processInfo
        return MachineInfo(
            hostname: info.hostName,
            cores: info.activeProcessorCount,
            memoryBytes: info.physicalMemory,
            cpuModel: firstLine(of: "/proc/cpuinfo", prefix: "model name").map { $0.components(separatedBy: ":").last?.trimmingCharacters(in: .whitespaces) ?? $0 } ?? "unknown",
            kernel: (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? info.operatingSystemVersionString,
            swiftVersion: swiftCompilerVersion,
            loadAverage: (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown",
            jemalloc: AllocationProbe.jemallocVersion ?? "unavailable")
    }

    private static func firstLine(of path: String, prefix: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init)
    }

    private static var swiftCompilerVersion: String {
        #if compiler(>=6.3)
        "6.3+"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }
}
