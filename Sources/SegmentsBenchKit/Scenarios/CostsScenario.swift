import Foundation

/// `costs`: the deterministic cost of each hot path (``CostRegion``), counted under callgrind.
///
/// Wall-clock figures move with the machine's load; these do not, so the gate holds them tightly:
/// an extra atomic in `trackEvent`, a retain/release pair per callback, an allocation per check or
/// a slower diff changes them in every run, on an idle or a busy machine. Needs valgrind.
public struct CostsScenario: Scenario {
    public init() {}
    public let name = "costs"
    public let honouredOptions: Set<BenchOptionName> = []
    public let needsMockIntrospection: String? = "the engine alone, in process, under callgrind (it drives no server)"
    public let needsSegmentsClient: String? = "internals (instruction counts per region under callgrind)"
    public let simulates = "each hot path in a counted function under valgrind's callgrind: trackEvent, a reload request, the packed diff, decode + diff, one delivered callback, one whole check"
    public let measures = "instructions, retains, releases and allocations per operation, which do not move with the machine's load (needs valgrind)"

    /// Retains, releases and allocations per operation: one more per operation fails; the same
    /// build varies by a few tenths per check at most (see ``CostRegion/instructionRule``).
    public static let countRule = GateRule.lowerIsBetter(relative: 0, absolute: 0.5)

    public var missingTool: String? { CostProbe.missingTool }

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        // A name of one length whatever the process ID: the counted executable's path is the
        // child's first argument, and so part of its starting heap (see `CostProbe.childEnvironment`).
        let processID = String(ProcessInfo.processInfo.processIdentifier)
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("segments-bench-costs-" + String(repeating: "0", count: max(0, 10 - processID.count)) + processID)
        defer { try? FileManager.default.removeItem(at: work) }
        let probe = CostProbe(workDirectory: work)
        var figures: [Figure] = []
        for region in CostRegion.allCases {
            progress.say("\(region.rawValue): counting under callgrind (\(region.iterations) and \(2 * region.iterations) iterations)")
            let cost = try probe.measure(region)
            let prefix = "costs.\(region.rawValue)"
            figures += [
                Figure(name: "\(prefix).instructions", value: cost.instructions, unit: "instructions/op", gate: region.instructionRule,
                       summary: "instructions executed per \(region.operation)"),
                Figure(name: "\(prefix).retains", value: cost.retains, unit: "calls/op", gate: Self.countRule,
                       summary: "Swift runtime retains per \(region.operation)"),
                Figure(name: "\(prefix).releases", value: cost.releases, unit: "calls/op", gate: region.releaseRule,
                       summary: "Swift runtime releases per \(region.operation)"),
                Figure(name: "\(prefix).allocations", value: cost.allocations, unit: "allocs/op", gate: Self.countRule,
                       summary: "malloc calls per \(region.operation)"),
            ]
        }
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["counter": "valgrind --tool=callgrind"]) { $1 },
            figures: figures, allocationsMeasured: true,
            notes: ["Counted with callgrind: each region at n and 2n iterations, the difference divided by n (setup and warm-up cancel). Only the counted functions' own threads are counted."])
    }
}
