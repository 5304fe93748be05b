import Foundation

/// Progress lines on standard error (standard output stays clean for `--json`).
public struct Progress: Sendable {
    /// `false` silences everything.
    public var enabled: Bool
    /// Prefix of every line (the scenario name).
    public var prefix: String
    /// The run's live metrics (`--metrics-port`), or `nil`; scenarios publish through
    /// ``sampleMetrics(every:_:)``.
    public var metrics: RunMetrics?

    /// Creates a reporter.
    public init(enabled: Bool, prefix: String = "", metrics: RunMetrics? = nil) {
        self.enabled = enabled
        self.prefix = prefix
        self.metrics = metrics
    }

    /// A reporter for one scenario (the same live metrics).
    public func scoped(_ name: String) -> Progress { Progress(enabled: enabled, prefix: name, metrics: metrics) }

    /// Prints one line.
    public func say(_ message: String) {
        guard enabled else { return }
        let line = prefix.isEmpty ? message : "[\(prefix)] \(message)"
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs `body` for `seconds`, saying how far it is about once a second.
    public func countdown(_ label: String, seconds: Double, until done: @Sendable () -> Bool = { false }) {
        let start = monotonicNanoseconds()
        let end = start + UInt64(seconds * 1e9)
        var nextReport = start + 1_000_000_000
        while monotonicNanoseconds() < end, !done() {
            usleep(20_000)
            let now = monotonicNanoseconds()
            if now >= nextReport {
                say("\(label): \(Int(Double(now - start) / 1e9)) / \(Int(seconds)) s")
                nextReport += 1_000_000_000
            }
        }
    }
}
