import SegmentsBenchCLI
import SegmentsBenchKit

/// Runs `segments-bench arguments` in process with `registry`: `nil` when the command succeeded,
/// else its exit status and the message it prints.
func commandFailure(_ arguments: [String], registry: ScenarioRegistry) -> (status: Int32, message: String)? {
    do {
        try SegmentsBenchCLI.run(arguments, registry: registry)
        return nil
    } catch {
        return (SegmentsBenchCLI.exitStatus(for: error), SegmentsBenchCLI.message(for: error))
    }
}
