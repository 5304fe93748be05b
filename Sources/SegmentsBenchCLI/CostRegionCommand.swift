import ArgumentParser
import SegmentsBenchKit

/// `cost-region NAME --iterations N`: runs one counted region once (what `costs` runs under
/// callgrind). Hidden: it measures nothing by itself.
struct CostRegionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cost-region", abstract: "Run one counted hot-path region (used by the costs scenario under callgrind).",
        shouldDisplay: false)
    @Argument(help: "Region: \(CostRegion.allCases.map(\.rawValue).joined(separator: ", ")).") var region: String
    @Option(parsing: .unconditional, help: "Iterations of the region's loop.") var iterations: Int

    func validate() throws {
        guard CostRegion(rawValue: region) != nil else {
            throw ValidationError("unknown region '\(region)'; known: \(CostRegion.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard iterations > 0 else { throw ValidationError("--iterations must be positive") }
    }

    func run() throws {
        try CostRegion(rawValue: region)!.run(iterations: iterations)
    }
}
