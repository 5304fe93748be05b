import NIOConcurrencyHelpers

/// Decides the faults of every request to one way in (an in-memory transport or an HTTP server)
/// and counts what it injected.
///
/// Threading: every method may be called from any thread; decisions are drawn under a lock, so
/// "request-arrival order" is the order in which callers reach ``decide(_:)``.
final class FaultInjector: Sendable {
    private struct State {
        var plan: FaultPlan
        var streams: [MockEndpoint: FaultStream]
        var counts = FaultCounts()

        init(plan: FaultPlan) {
            self.plan = plan
            self.streams = Dictionary(
                uniqueKeysWithValues: MockEndpoint.allCases.map { ($0, FaultStream(seed: plan.seed, endpoint: $0)) })
        }
    }

    private let state: NIOLockedValueBox<State>

    /// Creates an injector following `plan`.
    init(plan: FaultPlan) {
        self.state = NIOLockedValueBox(State(plan: plan))
    }

    /// The plan in force.
    var plan: FaultPlan { state.withLockedValue { $0.plan } }

    /// Replaces the plan and restarts every endpoint's stream from the new seed; counts are kept.
    func replacePlan(_ plan: FaultPlan) {
        state.withLockedValue { state in
            let counts = state.counts
            state = State(plan: plan)
            state.counts = counts
        }
    }

    /// Every fault injected so far.
    var counts: FaultCounts { state.withLockedValue { $0.counts } }

    /// Draws the decision for the next request to `endpoint` and counts it.
    func decide(_ endpoint: MockEndpoint) -> FaultDecision {
        state.withLockedValue { state in
            let profile = state.plan[endpoint]
            guard profile != .none else { return .pass }
            let decision = state.streams[endpoint]!.next(for: profile)
            if decision.delay != nil { state.counts[endpoint, .latency] += 1 }
            switch decision.outcome {
            case .pass: break
            case .error: state.counts[endpoint, .error] += 1
            case .hang: state.counts[endpoint, .hang] += 1
            case .malformed: state.counts[endpoint, .malformed] += 1
            case .truncated: state.counts[endpoint, .truncated] += 1
            case .reset: state.counts[endpoint, .reset] += 1
            }
            return decision
        }
    }
}
