import SegmentsBenchCLI
import SegmentsBenchKit

/// `custom-bench`: the segments-bench command line over this package's own scenario.
@main
enum Entry {
    static func main() {
        // `ScenarioRegistry()` would keep the built-in scenarios as well; this bench runs its own only.
        var registry = ScenarioRegistry(builtIns: false)
        do {
            try registry.register(ChecksumCallbackScenario())
        } catch {
            fatalError("custom-bench: \(error)")
        }
        SegmentsBenchCLI.main(registry: registry)
    }
}
