import Foundation

/// A report with the gate's verdict on it: what `segments-bench ci --json` prints, as one JSON
/// document, so that a tool reads standard output with a single decode.
///
/// ```json
/// {"gate": {"passed": true, "rows": [{"name": "…", "verdict": "pass", …}]}, "report": {…}}
/// ```
///
/// `report` is the ``BenchReport`` as `report.json` holds it; `gate.rows` are the
/// ``GateCheck/rows`` (every gated figure, passes included) and `gate.passed` is
/// ``GateCheck/passed``, which also decides the command's exit status.
public struct GatedReport: Codable, Sendable {
    /// The gate's verdict.
    public struct Gate: Codable, Sendable {
        /// `true` when no figure regressed, violated its rule, or went missing.
        public var passed: Bool
        /// One row per gated figure.
        public var rows: [GateCheck.Row]
    }

    /// The run, as written to `report.json`.
    public var report: BenchReport
    /// The comparison of `report` with the baseline.
    public var gate: Gate

    /// `report` with the verdict of `check` (which must have been made on `report`).
    public init(report: BenchReport, check: GateCheck) {
        self.report = report
        self.gate = Gate(passed: check.passed, rows: check.rows)
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
