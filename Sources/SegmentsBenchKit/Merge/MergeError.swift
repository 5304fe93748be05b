/// Why reports could not be merged.
public enum MergeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No report was given.
    case noReports
    /// A report could not be read (its path and the reason).
    case unreadable(path: String, reason: String)
    /// A latency's count is not that of its histogram (a report written before the recorded
    /// buckets were kept): it cannot be added exactly.
    case histogramMissing(host: String, scenario: String, latency: String)
    /// A latency's recorded buckets hold another number of samples than its count says.
    case histogramCountDiffers(host: String, scenario: String, latency: String, count: UInt64, recorded: UInt64)
    /// The reports come from different versions of the tool (each "host: version"), whose figures
    /// may be named or measured differently.
    case toolVersionsDiffer([String])
    /// Inputs that are, or hold, the same run (the same machine, start time, command and figures:
    /// ``RunIdentity``), named as the merged report names their hosts: merged, its events and
    /// samples would count twice.
    case sameRunTwice([String])
    /// A report holds a scenario, a figure of a scenario, or a latency of one (`what`) more than
    /// once: which is the measurement is unknown.
    case duplicated(host: String, what: String, times: Int)
    /// A latency whose samples, added over the hosts, would pass what a 64-bit histogram holds
    /// (2⁶⁴ samples, or 2⁶⁴ ns in all).
    case latencyOutOfRange(scenario: String, latency: String)
    /// A figure reported in different units (each "host: unit"): its values cannot be combined.
    case unitsDiffer(figure: String, units: [String])

    public var description: String {
        switch self {
        case .noReports: "Segments: merge needs at least one report directory"
        case let .unreadable(path, reason): "Segments: merge: cannot read \(path): \(reason)"
        case let .histogramMissing(host, scenario, latency):
            "Segments: merge: \(host)'s \(scenario) latency '\(latency)' has no recorded buckets to add (report written before they were kept)"
        case let .histogramCountDiffers(host, scenario, latency, count, recorded):
            "Segments: merge: \(host)'s \(scenario) latency '\(latency)' says \(count) samples and its recorded buckets hold \(recorded): the report is damaged"
        case let .toolVersionsDiffer(versions):
            "Segments: merge: the reports come from different versions of segments-bench (\(versions.joined(separator: ", "))): run one version on every host"
        case let .sameRunTwice(hosts):
            "Segments: merge: \(hosts.joined(separator: " and ")) are or hold the same run (same machine, start time, command and figures): give each run once"
        case let .duplicated(host, what, times):
            "Segments: merge: \(host)'s report holds \(what) \(times) times: which is the measurement is unknown"
        case let .latencyOutOfRange(scenario, latency):
            "Segments: merge: \(scenario) latency '\(latency)' added over the hosts passes 2^64 samples or 2^64 ns: a histogram cannot hold it"
        case let .unitsDiffer(figure, units):
            "Segments: merge: figure \(figure) is in different units (\(units.joined(separator: ", "))): its values cannot be combined; run one version of the scenario on every host"
        }
    }
}
