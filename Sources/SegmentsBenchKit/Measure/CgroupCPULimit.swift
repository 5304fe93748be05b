import Foundation

/// The CPU limit that this process's cgroup sets (a container's `resources.limits.cpu`), read
/// from cgroup v2's `cpu.max` or, on cgroup v1, from `cpu.cfs_quota_us` / `cpu.cfs_period_us`.
///
/// The host's processor count says nothing about a container limited to two cores on a 64-core
/// node: the harness's thread counts and its report's `cores` use ``effectiveCores(host:limit:)``.
public enum CgroupCPULimit {
    /// A cgroup file whose text is not what the kernel writes.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// The file's name and what was wrong.
        public let description: String
    }

    /// Cores allowed by cgroup v2 `cpu.max` text (`"QUOTA PERIOD"`, in µs): quota / period, or
    /// `nil` for `"max …"` (no limit). Throws ``ParseError`` for anything else (a quota or
    /// period that is not a positive integer, a missing period).
    public static func parseCPUMax(_ text: String) throws -> Double? {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let period = Int(fields[1]), period > 0 else {
            throw ParseError(description: "cpu.max: expected 'QUOTA PERIOD' or 'max PERIOD', got '\(text.trimmed)'")
        }
        if fields[0] == "max" { return nil }
        guard let quota = Int(fields[0]), quota > 0 else {
            throw ParseError(description: "cpu.max: the quota '\(fields[0])' is neither 'max' nor a positive number")
        }
        return Double(quota) / Double(period)
    }

    /// Cores allowed by cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us` text: quota /
    /// period, or `nil` for a quota of -1 (no limit). Throws ``ParseError`` for text that is not
    /// a number, a period that is not positive, or a quota below -1 or 0.
    public static func parseCFS(quota quotaText: String, period periodText: String) throws -> Double? {
        guard let quota = Int(quotaText.trimmed) else {
            throw ParseError(description: "cpu.cfs_quota_us: expected a number, got '\(quotaText.trimmed)'")
        }
        guard let period = Int(periodText.trimmed), period > 0 else {
            throw ParseError(description: "cpu.cfs_period_us: expected a positive number, got '\(periodText.trimmed)'")
        }
        if quota == -1 { return nil }
        guard quota > 0 else { throw ParseError(description: "cpu.cfs_quota_us: expected -1 or a positive number, got \(quota)") }
        return Double(quota) / Double(period)
    }

    /// The cgroup paths in `/proc/self/cgroup` text: the unified hierarchy's (the `0::PATH`
    /// line) and the v1 `cpu` controller's (`N:cpu,cpuacct:PATH` or `N:cpu:PATH`).
    public static func parseProcSelfCgroup(_ text: String) -> (unified: String?, cpuController: String?) {
        var unified: String?
        var cpu: String?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0", fields[1].isEmpty { unified = String(fields[2]) }
            if fields[1].split(separator: ",").contains("cpu") { cpu = String(fields[2]) }
        }
        return (unified, cpu)
    }

    /// The tightest CPU limit on this process, in cores, or `nil` when there is none (or no
    /// cgroup filesystem, as on macOS). `root` prefixes every path read (`/proc/self/cgroup`,
    /// `/sys/fs/cgroup/…`), for tests. The process's own cgroup and each of its ancestors are
    /// read (a parent's limit binds its children); a container that sees only its own cgroup at
    /// the mount's root is read there. A malformed file is skipped with a line on standard error.
    public static func read(root: String = "") -> Double? {
        let cgroups = (try? String(contentsOfFile: root + "/proc/self/cgroup", encoding: .utf8)).map(parseProcSelfCgroup)
        let mount = root + "/sys/fs/cgroup"
        var limits: [Double] = []
        if FileManager.default.fileExists(atPath: mount + "/cgroup.controllers") {
            for directory in directories(mount: mount, path: cgroups?.unified) {
                if let text = contents(directory + "/cpu.max"), let limit = parsed({ try parseCPUMax(text) }) { limits.append(limit) }
            }
        } else {
            for name in ["cpu,cpuacct", "cpu"] where FileManager.default.fileExists(atPath: mount + "/" + name) {
                for directory in directories(mount: mount + "/" + name, path: cgroups?.cpuController) {
                    if let quota = contents(directory + "/cpu.cfs_quota_us"), let period = contents(directory + "/cpu.cfs_period_us"),
                        let limit = parsed({ try parseCFS(quota: quota, period: period) })
                    {
                        limits.append(limit)
                    }
                }
                break
            }
        }
        return limits.min()
    }

    /// The cores the harness may use: the host's count, lowered to a cgroup limit rounded up
    /// (1.5 cores run two threads part of the time), never below 1.
    public static func effectiveCores(host: Int, limit: Double?) -> Int {
        guard let limit, limit > 0 else { return max(1, host) }
        return max(1, min(host, Int(limit.rounded(.up))))
    }

    /// This process's usable cores: ``effectiveCores(host:limit:)`` of the active processors and
    /// ``read(root:)``.
    public static func currentCores() -> Int {
        effectiveCores(host: ProcessInfo.processInfo.activeProcessorCount, limit: read())
    }

    /// The directories from the cgroup `path` under `mount` up to `mount` itself, deepest first;
    /// just `mount` when the path is unknown or not there (a container's namespaced view).
    private static func directories(mount: String, path: String?) -> [String] {
        var result: [String] = []
        if let path, path != "/", FileManager.default.fileExists(atPath: mount + path) {
            var components = path.split(separator: "/").map(String.init)
            while !components.isEmpty {
                result.append(mount + "/" + components.joined(separator: "/"))
                components.removeLast()
            }
        }
        result.append(mount)
        return result
    }

    private static func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    private static func parsed(_ parse: () throws -> Double?) -> Double? {
        do { return try parse() } catch {
            FileHandle.standardError.write(Data("segments-bench: ignoring the cgroup CPU limit: \(error)\n".utf8))
            return nil
        }
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
