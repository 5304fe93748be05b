extension LatencySummary {
    /// The name under which `compare` judges `percentile` (`p50`, `p99`) of this latency of
    /// `scenario`: what a figure repeating it gives as ``Figure/restates``.
    func comparedName(_ percentile: String, in scenario: String) -> String {
        FigureSamples.latencyFigureName(scenario: scenario, latency: name, percentile: percentile)
    }
}
