/// `gate-junit.xml`: the gate's verdict as JUnit XML, the format CI systems (GitHub Actions
/// reporters, GitLab, Jenkins, Buildkite) show as tests.
///
/// One `<testcase>` per gated figure, its class the scenario (`segments-bench.<scenario>`):
/// a `<failure>` for ``GateCheck/Verdict/regressed``, ``GateCheck/Verdict/violated``,
/// ``GateCheck/Verdict/missing`` and ``GateCheck/Verdict/invalid``, a `<skipped>` for
/// ``GateCheck/Verdict/skipped``, ``GateCheck/Verdict/notRun`` and ``GateCheck/Verdict/new`` (not
/// compared: no baseline value). Each harness error is one more
/// test case (class `segments-bench.harness`) with an `<error>`, and the warnings go to the
/// suite's `<system-out>`. All text is escaped, and characters XML forbids are dropped.
enum GateJUnit {
    static func render(_ check: GateCheck, suiteName: String = "segments-bench gate") -> String {
        let e = MarkupEscaping.xml
        let failing: Set<GateCheck.Verdict> = [.regressed, .violated, .missing, .invalid]
        let skipping: Set<GateCheck.Verdict> = [.skipped, .unmeasured, .notRun, .new]
        let failures = check.rows.filter { failing.contains($0.verdict) }.count
        let skipped = check.rows.filter { skipping.contains($0.verdict) }.count
        let tests = check.rows.count + check.harnessErrors.count
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(check.harnessErrors.count)\" skipped=\"\(skipped)\""

        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"\(e(suiteName))\" \(counts)>",
            "  <testsuite name=\"\(e(suiteName))\" \(counts)>",
            "    <properties>",
            "      <property name=\"verdict\" value=\"\(e(check.exitStatus.verdict))\"/>",
            "      <property name=\"exitCode\" value=\"\(check.exitStatus.rawValue)\"/>",
        ]
        if let baseline = check.baseline {
            lines.append("      <property name=\"baseline.gitRevision\" value=\"\(e(baseline.gitRevision))\"/>")
            lines.append("      <property name=\"baseline.toolVersion\" value=\"\(e(baseline.toolVersion ?? "unknown"))\"/>")
        }
        lines.append("    </properties>")
        for row in check.rows {
            let scenario = String(row.name.prefix { $0 != "." })
            let open = "    <testcase classname=\"segments-bench.\(e(scenario))\" name=\"\(e(row.name))\" time=\"0\""
            let detail = "baseline \(value(row.baseline)), now \(value(row.current)), limit \(value(row.limit)) \(row.unit), rule: \(row.rule)"
            if failing.contains(row.verdict) {
                lines.append(open + ">")
                lines.append("      <failure type=\"\(row.verdict.rawValue)\" message=\"\(e("\(row.verdict.rawValue): \(detail)"))\">\(e(detail))</failure>")
                lines.append("    </testcase>")
            } else if skipping.contains(row.verdict) {
                lines.append(open + ">")
                let why = switch row.verdict {
                case .notRun: "scenario not part of this run"
                case .new: "no baseline value to compare with"
                case .unmeasured: "not measured after its scenario violated a rule"
                default: "not measurable in this run"
                }
                lines.append("      <skipped message=\"\(e(why))\"/>")
                lines.append("    </testcase>")
            } else {
                lines.append(open + "/>")
            }
        }
        for (index, error) in check.harnessErrors.enumerated() {
            lines.append("    <testcase classname=\"segments-bench.harness\" name=\"harness error \(index + 1)\" time=\"0\">")
            lines.append("      <error type=\"harness-error\" message=\"\(e(error))\">\(e(error))</error>")
            lines.append("    </testcase>")
        }
        if !check.warnings.isEmpty {
            lines.append("    <system-out>\(e(check.warnings.map { "warning: \($0)" }.joined(separator: "\n")))</system-out>")
        }
        lines.append("  </testsuite>")
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func value(_ value: Double?) -> String {
        value.map(GateCheck.format) ?? "—"
    }
}
