/// `gate.json`: the gate's whole verdict for tools. Every gated figure as a row, the overall
/// verdict and exit code, where the baseline came from, and the warnings and harness errors.
///
/// ```json
/// {"verdict": "regression", "exitCode": 2, "passed": false,
///  "rows": [{"name": "tracking-storm.allocsPerEvent", "unit": "allocs/op", "baseline": 0.004,
///            "now": 0.054, "limit": 0.0242, "rule": "≤ baseline +5% +0.02", "verdict": "regressed",
///            "change": 12.5}],
///  "baseline": {"gitRevision": "…", "createdAt": "…", "command": "…", "toolVersion": "…", "machine": {…}},
///  "report": {"gitRevision": "…", "startedAt": "…", "command": "…", "toolVersion": "…"},
///  "warnings": ["…"], "harnessErrors": []}
/// ```
///
/// Written with ``ReportWriter/makeJSONEncoder()``: a `now` that is not a number appears as the
/// string `"NaN"` (or `"Infinity"`), and absent values (`baseline` of a new figure, `limit` of a
/// missing one) are left out. New fields may be added; readers should ignore the ones they do
/// not know.
public struct GateDocument: Codable, Sendable {
    /// One gated figure.
    public struct Row: Codable, Sendable {
        public var name: String
        public var unit: String
        public var baseline: Double?
        /// The value measured in this run.
        public var now: Double?
        /// The worst value that still passes (a bound for `mustEqual`/`atMost`).
        public var limit: Double?
        /// The rule in words.
        public var rule: String
        public var verdict: GateCheck.Verdict
        /// Relative change from the baseline (0.1 is +10 %), when both are finite.
        public var change: Double?

        /// The row of `row`.
        public init(_ row: GateCheck.Row) {
            name = row.name
            unit = row.unit
            baseline = row.baseline
            now = row.current
            limit = row.limit
            rule = row.rule
            verdict = row.verdict
            change = row.change
        }
    }

    /// The run that was checked, as its report records it.
    public struct Run: Codable, Sendable {
        public var gitRevision: String
        public var startedAt: String
        public var command: String
        public var toolVersion: String
    }

    /// ``ExitStatus/verdict``: `pass`, `regression`, `violation` or `harness-error`.
    public var verdict: String
    /// The exit code of `check`/`ci` (``ExitStatus``).
    public var exitCode: Int32
    /// `true` for exit code 0.
    public var passed: Bool
    public var rows: [Row]
    /// `nil` when the baseline could not be read.
    public var baseline: GateCheck.BaselineInfo?
    /// Where the baseline was read from, as given on the command line.
    public var baselinePath: String?
    /// `nil` when the report could not be read.
    public var report: Run?
    /// See ``GateCheck/warnings``.
    public var warnings: [String]
    /// See ``GateCheck/harnessErrors``.
    public var harnessErrors: [String]

    /// The document of `check`, made on `report` with the baseline at `baselinePath`.
    public init(check: GateCheck, report: BenchReport?, baselinePath: String?) {
        let status = check.exitStatus
        verdict = status.verdict
        exitCode = status.rawValue
        passed = status == .pass
        rows = check.rows.map(Row.init)
        baseline = check.baseline
        self.baselinePath = baselinePath
        self.report = report.map { Run(gitRevision: $0.gitRevision, startedAt: $0.startedAt, command: $0.command, toolVersion: $0.toolVersion) }
        warnings = check.warnings
        harnessErrors = check.harnessErrors
    }
}
