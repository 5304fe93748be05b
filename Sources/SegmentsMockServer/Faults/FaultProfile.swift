/// The faults one endpoint suffers: how often each kind happens and how slow answers are.
///
/// For each request the mock draws one outcome: a hang with probability ``hangRate``, else a reset
/// with ``resetRate``, else a truncated body with ``truncatedRate``, else a malformed body with
/// ``malformedRate``, else an error status with ``errorRate``, else the normal answer. Rates are
/// clamped to `0...1` (NaN counts as 0); when they add up to more than 1, the kinds earlier in
/// that order win. Independently, every answer except a hang is delayed by a draw from
/// ``latency``.
public struct FaultProfile: Sendable, Hashable {
    /// Probability that the request is answered with one of ``errorStatuses`` (JSON error body).
    public var errorRate: Double
    /// The statuses an error fault answers with, used in rotation (the first error gets the
    /// first status, and so on), so a test knows which error comes next. Statuses outside
    /// 400...599 are left out (an answer with another status is no error); none left means `[500]`.
    public var errorStatuses: [Int]
    /// The delay before each answer.
    public var latency: LatencyDistribution
    /// Probability that the request is never answered: the connection (or the in-memory call)
    /// stays silent until the client gives up, ``maxHang`` passes, or the server stops.
    public var hangRate: Double
    /// The longest a hang lasts; then the HTTP server closes the connection without an answer and
    /// the in-memory transport throws `SegmentsError.timeout`.
    public var maxHang: Duration
    /// Probability of a 200 whose body has the wrong shape (an envelope, a non-string id, ...).
    public var malformedRate: Double
    /// Probability of a 200 whose body is cut in the middle (over HTTP: `content-length` of the
    /// full body, half of it sent, then the connection closes).
    public var truncatedRate: Double
    /// Probability that the connection is closed abruptly (TCP reset) without any answer.
    public var resetRate: Double

    /// Creates a profile; every rate defaults to 0 and latency to none, so name only what you want.
    public init(
        errorRate: Double = 0,
        errorStatuses: [Int] = [500, 503, 429, 401],
        latency: LatencyDistribution = .none,
        hangRate: Double = 0,
        maxHang: Duration = .seconds(60),
        malformedRate: Double = 0,
        truncatedRate: Double = 0,
        resetRate: Double = 0
    ) {
        self.errorRate = errorRate
        self.errorStatuses = errorStatuses
        self.latency = latency
        self.hangRate = hangRate
        self.maxHang = maxHang
        self.malformedRate = malformedRate
        self.truncatedRate = truncatedRate
        self.resetRate = resetRate
    }

    /// No faults and no latency.
    public static let none = FaultProfile()
}
