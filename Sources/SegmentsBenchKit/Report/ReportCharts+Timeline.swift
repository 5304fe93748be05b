extension ReportCharts {
    /// The charts of a latency recorded by interval: operations per second over time, and p50 and
    /// p99 per interval over time, one line per host (time counted from each host's own start).
    func timeline(of latency: LatencySummary, scenario: String, defaultHost: String) -> (throughput: String, percentiles: String) {
        let timelines = latency.intervals.filter { !$0.histograms.isEmpty }.map(IntervalTimeline.init)
        let hosts = Set(timelines.map { $0.host ?? defaultHost })
        func label(_ timeline: IntervalTimeline, _ what: String) -> String {
            hosts.count > 1 ? "\(timeline.host ?? defaultHost): \(what)" : what
        }
        let throughput = timelines.map { timeline in
            (scenario: scenario, series: ChartSeries(
                chart: "\(latency.name): throughput", label: label(timeline, "operations/s"), xLabel: "time (s)",
                yLabel: "operations per second",
                points: timeline.points.map { ChartSeries.Point(x: $0.time, y: $0.operationsPerSecond) }))
        }
        let percentiles = timelines.flatMap { timeline in
            [("p50", timeline.points.compactMap { point in point.p50.map { ChartSeries.Point(x: point.time, y: Double($0)) } }),
             ("p99", timeline.points.compactMap { point in point.p99.map { ChartSeries.Point(x: point.time, y: Double($0)) } })]
                .filter { !$0.1.isEmpty }
                .map { name, points in
                    (scenario: scenario, series: ChartSeries(
                        chart: "\(latency.name): p50 and p99 per interval", label: label(timeline, name), xLabel: "time (s)",
                        yLabel: "latency (ns)", points: points))
                }
        }
        return (seriesChart(named: "\(scenario): \(latency.name), throughput over time", series: throughput),
                seriesChart(named: "\(scenario): \(latency.name), p50 and p99 over time", series: percentiles))
    }
}
