/// The answer to one command of a batch, as Exponea gives it in `results`.
enum BatchResult: Hashable, Sendable {
    /// `{"success": true}`: the command was applied.
    case accepted
    /// `{"success": true, "time": <seconds>}`: the answer to `system/time`.
    case time(Double)
    /// `{"success": false, "errors": [reason]}`: the command failed alone; nothing of it was applied.
    case refused(String)
}
