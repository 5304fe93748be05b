/// The exit status of `segments-bench check` and `ci`: what a CI system reads to tell a slower
/// build from a broken rule and from a harness that could not judge at all.
///
/// | status | code | when |
/// |---|---|---|
/// | ``pass`` | 0 | every gated figure within its limit |
/// | ``regression`` | 2 | a `lowerIsBetter`/`higherIsBetter` figure beyond its limit |
/// | ``violation`` | 3 | a correctness rule broken (`mustEqual`, `atMost`: stale deliveries, lost events …) |
/// | ``usage`` | 64 | bad arguments (EX_USAGE) |
/// | ``harnessError`` | 70 | no verdict possible: baseline missing or unreadable, a baseline figure not measured now (unless its scenario says a broken rule kept it from being measured: that rule's violation decides), in `ci` a gated figure the baseline has no value for, an interrupted run, a figure that is NaN or infinite, a scenario that threw (EX_SOFTWARE) |
///
/// When several apply, the one that says least about the engine and most about the run wins
/// (``combined(_:)``): usage over harness error over violation over regression over pass. A run
/// that broke a rule and also got slower is reported as the broken rule; a run whose harness
/// failed has no trustworthy figures, so neither a violation nor a regression is claimed.
public enum ExitStatus: Int32, Sendable, Codable, CaseIterable {
    /// Every gated figure is within its limit.
    case pass = 0
    /// A figure gated against the baseline is beyond its limit.
    case regression = 2
    /// A correctness rule is broken.
    case violation = 3
    /// The command line could not be parsed or validated.
    case usage = 64
    /// The harness could not produce a verdict it can stand behind.
    case harnessError = 70

    /// The order of ``combined(_:)``: higher wins. The one place the precedence is decided.
    private var precedence: Int {
        switch self {
        case .pass: 0
        case .regression: 1
        case .violation: 2
        case .harnessError: 3
        case .usage: 4
        }
    }

    /// The status that wins among `statuses` (``pass`` for none); see the type's discussion.
    public static func combined(_ statuses: some Sequence<ExitStatus>) -> ExitStatus {
        statuses.max { $0.precedence < $1.precedence } ?? .pass
    }

    /// The status a gate row's verdict calls for.
    public init(_ verdict: GateCheck.Verdict) {
        switch verdict {
        case .pass, .improved, .skipped, .unmeasured, .notRun, .new: self = .pass
        case .regressed: self = .regression
        case .violated: self = .violation
        case .missing, .invalid: self = .harnessError
        }
    }

    /// The overall verdict in one word, as `gate.json` and the summaries write it.
    public var verdict: String {
        switch self {
        case .pass: "pass"
        case .regression: "regression"
        case .violation: "violation"
        case .usage: "usage-error"
        case .harnessError: "harness-error"
        }
    }

    /// The exit codes and their precedence in a few lines, for the `check` and `ci` help text.
    public static let helpText = """
        Exit status: 0 pass; 2 a regression (a lowerIsBetter/higherIsBetter figure beyond its limit, or a \
        missed --threshold); \
        3 a correctness rule violated (mustEqual/atMost: stale deliveries, lost events …); 64 usage error; \
        70 harness error (baseline missing or unreadable, a baseline figure not measured now unless a \
        broken rule kept it from being measured, in ci a \
        gated figure the baseline has no value for, an interrupted run, a NaN or infinite figure, a \
        scenario that threw). When several apply: 70 wins over 3, and 3 over 2. \
        The verdict is also written next to the report: gate.json, gate-junit.xml and gate-summary.md.
        """
}
