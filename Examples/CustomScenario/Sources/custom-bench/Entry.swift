import SegmentsBenchCLI
import SegmentsBenchKit

/// `custom-bench`: the segments-bench command line over this package's own scenario, and the
/// built-in `fleet` and `pull` driving this package's own engine.
@main
enum Entry {
    static func main() {
        // `ScenarioRegistry()` would keep every built-in scenario as well; this bench picks its own.
        var registry = ScenarioRegistry(builtIns: false)
        do {
            try registry.register(ChecksumCallbackScenario())
            // Built-in scenarios that drive any `BenchEngine` (their `needsSegmentsClient` is nil).
            try registry.register(FleetScenario())
            try registry.register(PullScenario())
        } catch {
            fatalError("custom-bench: \(error)")
        }
        // Every scenario that drives an engine drives this one instead of a plain SegmentsClient.
        registry.engine = WrappedClientEngine.factory
        SegmentsBenchCLI.main(registry: registry)
    }
}
