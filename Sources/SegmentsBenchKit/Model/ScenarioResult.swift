/// What one scenario run measured.
public struct ScenarioResult: Codable, Sendable {
    /// The scenario's name (`tracking-storm`, ...).
    public var scenario: String
    /// What it simulates and what it measures.
    public var summary: String
    /// The options it ran with, as text.
    public var configuration: [String: String]
    /// Gated and reported numbers.
    public var figures: [Figure]
    /// Latency distributions.
    public var latencies: [LatencySummary]
    /// Series for charts (x/y points per named line), e.g. latency against callback count.
    public var series: [ChartSeries]
    /// Allocation figures were measured (jemalloc present).
    public var allocationsMeasured: Bool
    /// Free-form notes (for example why a figure is missing).
    public var notes: [String]
    /// Wall time of the run in seconds.
    public var wallSeconds: Double
    /// Figures this run could not measure because a correctness rule broke (a fan-out check that
    /// lost a callback ends before its allocation count). With the rule's figure violated, the gate
    /// calls them unmeasured, and the violation is its verdict; otherwise they are missing.
    public var unmeasuredAfterViolation: [String]

    /// Creates a result.
    public init(
        scenario: String, summary: String, configuration: [String: String], figures: [Figure] = [],
        latencies: [LatencySummary] = [], series: [ChartSeries] = [], allocationsMeasured: Bool, notes: [String] = [],
        wallSeconds: Double = 0, unmeasuredAfterViolation: [String] = []
    ) {
        self.scenario = scenario
        self.summary = summary
        self.configuration = configuration
        self.figures = figures
        self.latencies = latencies
        self.series = series
        self.allocationsMeasured = allocationsMeasured
        self.notes = notes
        self.wallSeconds = wallSeconds
        self.unmeasuredAfterViolation = unmeasuredAfterViolation
    }

    private enum CodingKeys: String, CodingKey {
        case scenario, summary, configuration, figures, latencies, series, allocationsMeasured, notes, wallSeconds
        case unmeasuredAfterViolation
    }

    /// Encodes every field; ``unmeasuredAfterViolation`` only when it names a figure.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(summary, forKey: .summary)
        try container.encode(configuration, forKey: .configuration)
        try container.encode(figures, forKey: .figures)
        try container.encode(latencies, forKey: .latencies)
        try container.encode(series, forKey: .series)
        try container.encode(allocationsMeasured, forKey: .allocationsMeasured)
        try container.encode(notes, forKey: .notes)
        try container.encode(wallSeconds, forKey: .wallSeconds)
        if !unmeasuredAfterViolation.isEmpty { try container.encode(unmeasuredAfterViolation, forKey: .unmeasuredAfterViolation) }
    }

    /// Decodes a result; everything but the scenario's name may be missing (it takes its empty
    /// default) and unknown fields are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scenario = try container.decode(String.self, forKey: .scenario)
        summary = try container.decodeIfPresent(String.self, forKey: .summary) ?? ""
        configuration = try container.decodeIfPresent([String: String].self, forKey: .configuration) ?? [:]
        figures = try container.decodeIfPresent([Figure].self, forKey: .figures) ?? []
        latencies = try container.decodeIfPresent([LatencySummary].self, forKey: .latencies) ?? []
        series = try container.decodeIfPresent([ChartSeries].self, forKey: .series) ?? []
        allocationsMeasured = try container.decodeIfPresent(Bool.self, forKey: .allocationsMeasured) ?? false
        notes = try container.decodeIfPresent([String].self, forKey: .notes) ?? []
        wallSeconds = try container.decodeIfPresent(Double.self, forKey: .wallSeconds) ?? 0
        unmeasuredAfterViolation = try container.decodeIfPresent([String].self, forKey: .unmeasuredAfterViolation) ?? []
    }

    /// The figure named `name`, if measured.
    public func figure(_ name: String) -> Figure? { figures.first { $0.name == name } }
}

/// One line of a chart: points (x, y) with a label.
public struct ChartSeries: Codable, Sendable, Hashable {
    /// Which chart it belongs to (for example `fanout-latency`, `allocations-per-op`, `peers`).
    public var chart: String
    /// The line's label.
    public var label: String
    /// X axis label and unit.
    public var xLabel: String
    /// Y axis label and unit.
    public var yLabel: String
    public var points: [Point]

    public struct Point: Codable, Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// Creates a series.
    public init(chart: String, label: String, xLabel: String, yLabel: String, points: [Point]) {
        self.chart = chart
        self.label = label
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.points = points
    }
}
