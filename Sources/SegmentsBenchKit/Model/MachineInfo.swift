import Foundation

/// The machine a report was measured on.
public struct MachineInfo: Codable, Sendable, Hashable {
    public var hostname: String
    public var cores: Int
    public var memoryBytes: UInt64
    /// The CPU's model name, followed by its family, model and stepping where the system gives them
    /// (see ``cpuDescription(fromCPUInfo:)``).
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
            cpuModel: (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)).map(cpuDescription(fromCPUInfo:)) ?? "unknown",
            kernel: (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? info.operatingSystemVersionString,
            swiftVersion: swiftCompilerVersion,
            loadAverage: (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown",
            jemalloc: AllocationProbe.jemallocVersion ?? "unavailable")
    }

    /// The first processor's model name in `/proc/cpuinfo` text, with its family, model and
    /// stepping: `AMD EPYC (family 26, model 2, stepping 1)`; `unknown` without a model name.
    ///
    /// A VM often shows only a generic name ("AMD EPYC"), which hid that two hosts of one name were
    /// different CPU generations (family 25 and 26 here): every ratio in a report depends on that,
    /// so the report says it.
    public static func cpuDescription(fromCPUInfo text: String) -> String {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // The fields repeat for every processor: the first processor's are kept.
            if fields[key] == nil { fields[key] = value }
        }
        guard let name = fields["model name"], !name.isEmpty else { return "unknown" }
        let details = [("family", "cpu family"), ("model", "model"), ("stepping", "stepping")].compactMap { label, key in
            fields[key].map { "\(label) \($0)" }
        }
        return details.isEmpty ? name : "\(name) (\(details.joined(separator: ", ")))"
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
