/// The kinds of fault the mock injects, as counted in ``FaultCounts``.
public enum FaultKind: String, Sendable, CaseIterable, Hashable {
    /// An error status from ``FaultProfile/errorStatuses``.
    case error
    /// A delayed answer (counted whenever the latency draw is above zero, whatever the outcome).
    case latency
    /// No answer until the client gives up, the max hang passes or the server stops.
    case hang
    /// A 200 whose body has the wrong shape.
    case malformed
    /// A 200 whose body is cut in the middle.
    case truncated
    /// The connection closed abruptly without an answer.
    case reset
}
