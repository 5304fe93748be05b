/// The version of `segments-bench` and its kit.
///
/// Every report and baseline records it, and `segments-bench check` warns when a report was made
/// by another version than its baseline: a changed scenario or recorder can move figures without
/// any change to the engine. Raise it whenever a scenario, a figure's definition or a report field
/// changes.
public enum ToolVersion {
    /// The version string written into reports and baselines.
    public static let current = "0.9.0"
}
