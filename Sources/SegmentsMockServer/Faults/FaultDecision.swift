/// What the mock does with one request: the outcome and the delay before it. Drawn by
/// ``FaultStream`` and carried out by each way in (in-memory transport or HTTP server).
struct FaultDecision: Sendable, Hashable {
    /// The outcome of one request.
    enum Outcome: Sendable, Hashable {
        /// Handle the request normally.
        case pass
        /// Answer with this HTTP status and a JSON error body.
        case error(status: Int)
        /// Do not answer; give up after `limit`.
        case hang(limit: Duration)
        /// Answer 200 with a body of the wrong shape; `variant` picks which wrong shape.
        case malformed(variant: Int)
        /// Answer 200 with the body cut in half.
        case truncated
        /// Close the connection without an answer.
        case reset
    }

    /// What happens.
    var outcome: Outcome
    /// How long to wait before it happens; `nil` for no wait (always `nil` for a hang).
    var delay: Duration?

    /// The normal answer, at once.
    static let pass = FaultDecision(outcome: .pass, delay: nil)
}
