import SegmentsBenchCLI
import SegmentsBenchKit

/// `segments-bench`: the harness's command line with the built-in scenarios.
@main
enum Entry {
    static func main() { SegmentsBenchCLI.main(registry: ScenarioRegistry()) }
}
