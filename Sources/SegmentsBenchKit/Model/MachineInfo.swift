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
    /// The harness clock's resolution and read cost, measured at the start of the run; `nil` in
    /// reports written before it was recorded.
    public var clock: ClockResolution?

    /// Creates a description.
    public init(
        hostname: String, cores: Int, memoryBytes: UInt64, cpuModel: String, kernel: String, swiftVersion: String,
        loadAverage: String, jemalloc: String, clock: ClockResolution? = nil
    ) {
        self.hostname = hostname
        self.cores = cores
        self.memoryBytes = memoryBytes
        self.cpuModel = cpuModel
        self.kernel = kernel
        self.swiftVersion = swiftVersion
        self.loadAverage = loadAverage
        self.jemalloc = jemalloc
        self.clock = clock
    }

    private enum CodingKeys: String, CodingKey {
        case hostname, cores, memoryBytes, cpuModel, kernel, swiftVersion, loadAverage, jemalloc, clock
    }

    /// Decodes a description; every field may be missing (older or foreign files), unknown fields
    /// are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hostname = try container.decodeIfPresent(String.self, forKey: .hostname) ?? "unknown"
        cores = try container.decodeIfPresent(Int.self, forKey: .cores) ?? 0
        memoryBytes = try container.decodeIfPresent(UInt64.self, forKey: .memoryBytes) ?? 0
        cpuModel = try container.decodeIfPresent(String.self, forKey: .cpuModel) ?? "unknown"
        kernel = try container.decodeIfPresent(String.self, forKey: .kernel) ?? "unknown"
        swiftVersion = try container.decodeIfPresent(String.self, forKey: .swiftVersion) ?? "unknown"
        loadAverage = try container.decodeIfPresent(String.self, forKey: .loadAverage) ?? "unknown"
        jemalloc = try container.decodeIfPresent(String.self, forKey: .jemalloc) ?? "unavailable"
        clock = try container.decodeIfPresent(ClockResolution.self, forKey: .clock)
    }

    /// The fields that identify the machine and its toolchain, by name: what `check` compares with
    /// the baseline's (the load average and the clock measurement vary from run to run).
    public var identity: [(field: String, value: String)] {
        [("hostname", hostname), ("cores", "\(cores)"), ("memoryBytes", "\(memoryBytes)"), ("cpuModel", cpuModel),
         ("kernel", kernel), ("swiftVersion", swiftVersion), ("jemalloc", jemalloc)]
    }

    /// Reads the current machine and measures its clock.
    public static func current() -> MachineInfo {
        let info = ProcessInfo.processInfo
        return MachineInfo(
            hostname: info.hostName,
            cores: CgroupCPULimit.currentCores(),
            memoryBytes: info.physicalMemory,
            cpuModel: (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)).map(cpuDescription(fromCPUInfo:)) ?? "unknown",
            kernel: (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? info.operatingSystemVersionString,
            swiftVersion: swiftCompilerVersion,
            loadAverage: (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown",
            jemalloc: AllocationProbe.jemallocVersion ?? "unavailable",
            clock: ClockResolution.measure())
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
