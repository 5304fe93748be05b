import RealtimeSegments

/// The engine under test: N callbacks on one category, each check a changed segment list fetched
/// from the in-memory backend (``FanoutProbe/engine(targets:checks:mode:floorRounds:spinWindow:)``),
/// in one of three set-ups an app can choose.
///
/// Each trial builds and shuts down its own engine, so nothing of it outlives the trial.
final class EnginePeer: PeerMechanism {
    /// How the engine under test delivers.
    enum Setup: CaseIterable {
        /// Ordered delivery, the default configuration (no spin window): each check's delivery
        /// wakes the delivery thread.
        case ordered
        /// Parallel delivery on every core.
        case parallel
        /// Ordered delivery with a ``SegmentsConfiguration/deliverySpinWindow`` (the peer's
        /// `spinWindow`): a check that follows the last one within the window finds its delivery
        /// thread awake.
        case orderedSpinning

        /// The mechanism's name in figure names and on the chart.
        var name: String {
            switch self {
            case .ordered: "engine"
            case .parallel: "engine-parallel"
            case .orderedSpinning: "engine-spin"
            }
        }

        /// How it delivers, as the speed-up figures' summaries say it.
        var delivery: String {
            switch self {
            case .ordered: "ordered"
            case .parallel: "parallel"
            case .orderedSpinning: "ordered, spin window"
            }
        }

        var mode: DeliveryMode { self == .parallel ? .parallel : .ordered }
    }

    let name: String
    let timedSpan: String
    /// A trial pays for building an engine and registering N callbacks before its first check, so
    /// it always carries a few checks.
    let minimumRounds: Int
    private let callbacks: Int
    private let setup: Setup
    /// The client's spin window: `spinWindow` for ``Setup/orderedSpinning``, else zero.
    private let spinWindow: Duration

    /// An engine peer for `callbacks` subscribers set up as `setup`, whose trials have at least
    /// `minimumChecks` checks; `spinWindow` is the window of ``Setup/orderedSpinning``.
    init(callbacks: Int, minimumChecks: Int, setup: Setup = .ordered, spinWindow: Duration = FanoutProbe.spinWindow) {
        self.callbacks = callbacks
        self.setup = setup
        self.spinWindow = setup == .orderedSpinning ? spinWindow : .zero
        minimumRounds = minimumChecks
        name = setup.name
        timedSpan =
            switch setup {
            case .ordered: "data received (fetch returned) → last callback returned, ordered delivery"
            case .parallel: "data received (fetch returned) → last callback returned, parallel delivery on every core"
            case .orderedSpinning:
                "data received (fetch returned) → last callback returned, ordered delivery, \(FanoutProbe.label(spinWindow)) delivery spin window"
            }
    }

    func trial(rounds: Int) throws -> PeerTrial {
        let measurement = try FanoutProbe.engine(
            targets: FanoutTargets(count: callbacks), checks: rounds, mode: setup.mode, floorRounds: false, spinWindow: spinWindow)
        let loss = measurement.complete ? nil : "a check did not reach all \(callbacks) callbacks exactly once"
        var trial = PeerTrial(perNotification: measurement.last, loss: loss)
        if setup == .orderedSpinning { trial.spinNanosecondsPerNotification = measurement.spinNanosecondsPerCheck }
        return trial
    }

    func tearDown() {}
}
