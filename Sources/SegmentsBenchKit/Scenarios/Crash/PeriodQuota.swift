/// How many events a crash child tracks in each flush period to keep to its rate.
///
/// A period takes what the schedule owes by its end, so fractions carry over: at 10 events a
/// second and 10 ms periods, one event every tenth period, not one in each.
struct PeriodQuota {
    let rate: Double
    /// Seconds per period.
    let period: Double
    private var periods = 0
    private var taken = 0

    init(rate: Double, period: Double) {
        self.rate = rate
        self.period = period
    }

    /// The events of the next period (0 when the rate owes none yet).
    mutating func next() -> Int {
        periods += 1
        // The small term absorbs binary rounding (0.1 × 10 periods must owe 1 event, not 0).
        let owed = Int((rate * period * Double(periods) + 1e-9).rounded(.down))
        defer { taken = owed }
        return owed - taken
    }
}
