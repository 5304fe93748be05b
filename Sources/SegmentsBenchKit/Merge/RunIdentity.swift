/// What tells one run of the harness from another, for `merge`: its machine, start time and
/// command, and a fingerprint of what it measured. Hosts launched together from one image can
/// share the first three (a start time has whole seconds); their figures still differ.
public struct RunIdentity: Codable, Sendable, Hashable {
    public var hostname: String
    public var startedAt: String
    public var command: String
    /// FNV-1a (64 bits, hexadecimal) of every figure's value and every latency's count, in order.
    public var fingerprint: String

    /// The identity of `report`, a single run's report.
    public init(of report: BenchReport) {
        hostname = report.machine.hostname
        startedAt = report.startedAt
        command = report.command
        var hash = FNV1a()
        for scenario in report.scenarios {
            scenario.figures.forEach { hash.add($0.value.bitPattern) }
            scenario.latencies.forEach { hash.add($0.count) }
        }
        fingerprint = String(hash.value, radix: 16)
    }

    /// The runs `report` holds: those it was merged from, or itself.
    public static func runs(of report: BenchReport) -> [RunIdentity] {
        report.mergedFrom ?? [RunIdentity(of: report)]
    }
}
