import Foundation

/// A report with the gate's verdict on it: what `segments-bench ci --json` prints, as one JSON
/// document, so that a tool reads standard output with a single decode.
///
/// ```json
/// {"gate": {"passed": true, "exitCode": 0, "verdict": "pass", "rows": [{"name": "…", "verdict": "pass", …}],
///           "warnings": [], "harnessErrors": []},
///  "report": {…}}
/// ```
///
/// `report` is the ``BenchReport`` as `report.json` holds it, absent when nothing ran (`ci` with a
/// baseline it cannot read); `gate.rows` are the
/// ``GateCheck/rows`` (every gated figure, passes included), `gate.exitCode` is the command's exit
/// status (``GateCheck/exitStatus``) and `gate.passed` is `true` when it is 0.
public struct GatedReport: Codable, Sendable {
    /// The gate's verdict.
    public struct Gate: Codable, Sendable {
        /// `true` when ``exitCode`` is 0.
        public var passed: Bool
        /// The command's exit code (``ExitStatus``).
        public var exitCode: Int32
        /// ``ExitStatus/verdict``: `pass`, `regression`, `violation` or `harness-error`.
        public var verdict: String
        /// One row per gated figure.
        public var rows: [GateCheck.Row]
        /// See ``GateCheck/warnings``.
        public var warnings: [String]
        /// See ``GateCheck/harnessErrors``.
        public var harnessErrors: [String]

        /// The verdict of `check`.
        public init(_ check: GateCheck) {
            passed = check.passed
            exitCode = check.exitStatus.rawValue
            verdict = check.exitStatus.verdict
            rows = check.rows
            warnings = check.warnings
            harnessErrors = check.harnessErrors
        }

        private enum CodingKeys: String, CodingKey { case passed, exitCode, verdict, rows, warnings, harnessErrors }

        /// Decodes a verdict; fields added after `passed` and `rows` may be missing.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            passed = try container.decode(Bool.self, forKey: .passed)
            exitCode = try container.decodeIfPresent(Int32.self, forKey: .exitCode) ?? (passed ? 0 : 1)
            verdict = try container.decodeIfPresent(String.self, forKey: .verdict) ?? (passed ? "pass" : "fail")
            rows = try container.decode([GateCheck.Row].self, forKey: .rows)
            warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
            harnessErrors = try container.decodeIfPresent([String].self, forKey: .harnessErrors) ?? []
        }
    }

    /// The run, as written to `report.json`; `nil` when nothing ran.
    public var report: BenchReport?
    /// The comparison of `report` with the baseline.
    public var gate: Gate

    /// `report` with the verdict of `check` (which must have been made on `report`, or without a
    /// report when `report` is `nil`).
    public init(report: BenchReport?, check: GateCheck) {
        self.report = report
        self.gate = Gate(check)
    }

    /// The document as JSON text: pretty printed, keys sorted, non-finite figures as strings
    /// (the encoding of ``ReportWriter/makeJSONEncoder()``; read it back with
    /// ``ReportWriter/makeJSONDecoder()``).
    ///
    /// - Throws: encoding errors.
    public func jsonText() throws -> String {
        String(decoding: try ReportWriter.makeJSONEncoder().encode(self), as: UTF8.self)
    }
}
