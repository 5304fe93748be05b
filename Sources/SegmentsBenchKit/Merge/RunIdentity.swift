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
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ word: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ ((word >> UInt64(shift)) & 0xff)) &* 0x0000_0100_0000_01b3
            }
        }
        for scenario in report.scenarios {
            scenario.figures.forEach { add($0.value.bitPattern) }
            scenario.latencies.forEach { add($0.count) }
        }
        fingerprint = String(hash, radix: 16)
    }

    /// The runs `report` holds: those it was merged from, or itself.
    public static func runs(of report: BenchReport) -> [RunIdentity] {
        report.mergedFrom ?? [RunIdentity(of: report)]
    }
}
