import Foundation

/// The engine's fan-out next to the ways an app could deliver the same change without it.
///
/// One notification, the harness's ten-segment payload, goes to N subscribers through eight
/// mechanisms: the engine (ordered delivery, parallel delivery on every core, and ordered delivery
/// with a delivery spin window, whose spinning is reported as its CPU price), a plain loop
/// over `[closure]` (the floor), `NotificationCenter`, an OpenCombine `PassthroughSubject`, one
/// `DispatchQueue.global()` block per callback, and one `AsyncStream` per subscriber. Every
/// subscriber does the same minimal work (add the segment count to its own counter), and every
/// subscriber must receive every notification: a mechanism that loses one is reported in the notes
/// instead of with a number, and for the engine also as a gated `incomplete` count.
///
/// As in the anchor measurements (`shared/notes/anchor-numbers.md`, section A), all mechanisms of
/// one N are built first, each is calibrated to a trial of at least the target duration, and then
/// the trials run round-robin with the starting mechanism rotated, so that the load of the shared
/// machine falls on all of them alike. Each trial yields its mean time per notification; a
/// mechanism's figure is the median over trials, and its ratio to the floor is the trustworthy
/// number (absolute times vary 1.3–2× from run to run on the shared 2-core machine).
public struct PeersScenario: Scenario {
    public let name = "peers"
    public let honouredOptions: Set<BenchOptionName> = [.callbacks, .spinWindowMs]
    public let needsMockIntrospection: String? = "the engine alone, in process (it drives no server)"
    public let needsSegmentsClient: String? = "delivery loop, compared with other mechanisms"
    public let simulates =
        "One segment change (10 segments) delivered to N subscribers by the engine (ordered, parallel, and ordered with a delivery spin window: \(FanoutProbe.label(FanoutProbe.spinWindow)), or --spin-window-ms) "
        + "and by the peers an app could use instead: "
        + "a [closure] loop (the floor), NotificationCenter, OpenCombine PassthroughSubject, one DispatchQueue.global() block per "
        + "callback, one AsyncStream per subscriber."
    public let measures =
        "Median over trials of the mean time per notification (and per subscriber callback) of each mechanism, as a ratio to the closure loop measured "
        + "in the same run; trials interleaved so the shared machine's noise hits all alike; the spin window's CPU time per notification."

    /// The mechanisms compared, in report order. `closure-loop` is the floor.
    public static let mechanisms =
        EnginePeer.Setup.allCases.map(\.name)
        + ["closure-loop", "notification-center", "opencombine", "dispatch-per-callback", "asyncstream"]
    /// The engine's mechanisms, whose losses are gated counts.
    static let engineMechanisms = Set(EnginePeer.Setup.allCases.map(\.name))
    /// The largest N the `asyncstream` peer runs at: above it one task per subscriber takes too long.
    public static let asyncStreamLimit = 10_000
    /// The subscriber counts of a full run.
    public static let defaultCallbackCounts = [10, 1_000, 10_000]
    /// The subscriber counts of a quick run.
    public static let quickCallbackCounts = [10, 1_000]

    /// Creates the scenario.
    public init() {}

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let plan = Plan(options)
        var report = Report()
        var largest: (callbacks: Int, results: [MechanismResult])?
        for callbacks in plan.callbackCounts {
            if callbacks > Self.asyncStreamLimit {
                report.notes.append(
                    "asyncstream skipped at N=\(callbacks): above N=\(Self.asyncStreamLimit) one Task and stream per subscriber "
                        + "(~2–6 µs per callback) makes a trial too slow.")
            }
            progress.say("N=\(callbacks): calibrating, then \(plan.trials) interleaved trials per mechanism")
            let results = measure(callbacks: callbacks, plan: plan)
            report.add(results, callbacks: callbacks, progress: progress)
            largest = (callbacks, results)
        }

        var latencies: [LatencySummary] = []
        if let (callbacks, results) = largest {
            for result in results where result.median != nil {
                latencies.append(
                    result.recorder.summary(
                        "peers \(result.name) N=\(callbacks)",
                        definition: "Time per notification to all \(callbacks) subscribers: \(result.timedSpan)."))
            }
        }
        let series = Self.mechanisms.compactMap { mechanism in
            report.points[mechanism].map {
                ChartSeries(chart: "peers", label: mechanism, xLabel: "callbacks", yLabel: "ns per callback", points: $0)
            }
        }

        var configuration = options.configuration(honouring: honouredOptions)
        configuration["callbackCounts"] = plan.callbackCounts.map(String.init).joined(separator: ",")
        configuration["trials"] = "\(plan.trials)"
        configuration["trialTargetMs"] = "\(plan.trialTargetNanoseconds / 1_000_000)"
        configuration["engineMinimumChecks"] = "\(plan.engineMinimumChecks)"
        configuration["engineDeliveryModes"] =
            "ordered (engine), parallel (engine-parallel), ordered with a \(FanoutProbe.label(plan.spinWindow)) delivery spin window (engine-spin)"
        configuration["payload"] = "\(PeerPayloads.segmentCount) segments"
        return ScenarioResult(
            scenario: name, summary: simulates + " " + measures, configuration: configuration, figures: report.figures,
            latencies: latencies, series: series, allocationsMeasured: AllocationProbe.isAvailable, notes: report.notes)
    }

    // MARK: - Reporting

    /// Figures, chart points and notes, gathered N by N.
    struct Report {
        var figures: [Figure] = []
        /// Chart points per mechanism: (N, median ns per callback).
        var points: [String: [ChartSeries.Point]] = [:]
        var notes = [
            "Trustworthy output: the ratios (ratioToFloor, speedupVs...). Absolute ns vary 1.3–2× run to run on the shared machine.",
            "Per-subscriber work in every peer: one relaxed atomic add to the subscriber's own cache line; the floor does a plain add. "
                + "The engine's time runs from the fetch's return, so it includes the diff and the hop to its delivery thread.",
        ]

        /// Adds the figures of one N and says one progress line per mechanism.
        mutating func add(_ results: [MechanismResult], callbacks: Int, progress: Progress) {
            let medians = Dictionary(uniqueKeysWithValues: results.compactMap { result in result.median.map { (result.name, $0) } })
            let floor = medians["closure-loop"]
            if floor == nil { notes.append("No floor at N=\(callbacks): ratios for this N are omitted.") }
            for result in results {
                guard let median = medians[result.name] else {
                    let failure = result.failure ?? .error("no trial completed")
                    notes.append("\(failure.label): \(result.name) at N=\(callbacks): \(failure.detail). Its figures for this N are omitted.")
                    progress.say("N=\(callbacks) \(result.name): \(failure.label.lowercased()): \(failure.detail)")
                    continue
                }
                let perCallback = median / Double(callbacks)
                points[result.name, default: []].append(ChartSeries.Point(x: Double(callbacks), y: perCallback))
                let prefix = "peers.\(result.name).N\(callbacks)"
                figures.append(
                    Figure(
                        name: "\(prefix).nsPerCallback", value: perCallback, unit: "ns",
                        summary: "\(result.name), \(callbacks) subscribers: the median over trials of each trial's mean time per "
                            + "notification, / N (\(result.trials) trials × \(result.rounds) notifications; the latency table's "
                            + "p50 is of single notifications, and lower where the time has a long tail)."))
                var line = "N=\(callbacks) \(result.name): \(format(perCallback)) ns/callback"
                if let floor {
                    let ratio = median / floor
                    // Wall-clock: reported, not gated in one run (`segments-bench compare` judges it).
                    figures.append(
                        Figure(
                            name: "\(prefix).ratioToFloor", value: ratio, unit: "ratio", gate: nil,
                            direction: .lowerIsBetter, summary: "\(result.name), \(callbacks) subscribers: median over trials of the mean time per notification / the closure loop's, same run."))
                    line += " (×\(format(ratio)) floor)"
                }
                progress.say(line + ", \(result.trials) trials × \(result.rounds) notifications")
            }
            // The engine losing a notification, or failing a trial, is a bug, not a figure to leave
            // out: counted and gated.
            for result in results where PeersScenario.engineMechanisms.contains(result.name) {
                figures.append(
                    Figure(
                        name: "peers.\(result.name).N\(callbacks).incomplete", value: medians[result.name] == nil ? 1 : 0, unit: "count",
                        gate: .zero,
                        summary: "1 if \(result.name) failed a trial or a check in which one of the \(callbacks) subscribers was not called exactly once."))
            }
            for result in results where result.name == EnginePeer.Setup.orderedSpinning.name {
                guard medians[result.name] != nil, let spin = result.medianSpin else { continue }
                figures.append(
                    Figure(
                        name: "peers.\(result.name).N\(callbacks).spinNsPerNotification", value: spin, unit: "ns",
                        summary: "\(result.name), \(callbacks) subscribers: median over trials of the delivery thread's spinning per "
                            + "notification (CPU time, the window's price)."))
            }
            for setup in EnginePeer.Setup.allCases {
                guard let engine = medians[setup.name] else { continue }
                for (peer, title) in [("notification-center", "NotificationCenter"), ("opencombine", "OpenCombine")] {
                    guard let other = medians[peer] else { continue }
                    figures.append(
                        Figure(
                            name: "peers.\(setup.name).N\(callbacks).speedupVs\(title)", value: other / engine, unit: "ratio",
                            direction: .higherIsBetter, summary: "\(peer)'s median over trials of the mean time per notification / the engine's (\(setup.delivery) delivery), \(callbacks) subscribers."))
                }
            }
        }

        private func format(_ value: Double) -> String {
            String(format: value >= 100 ? "%.0f" : "%.2f", value)
        }
    }

    // MARK: - Measuring one N

    /// How much to measure.
    struct Plan {
        var callbackCounts: [Int]
        /// Trials per mechanism and N.
        var trials: Int
        /// Every trial lasts at least this long (wall time), so short ones are not all noise.
        var trialTargetNanoseconds: UInt64
        /// The spin window of `engine-spin`.
        var spinWindow: Duration
        /// The engine's trials carry the cost of building an engine, so each has at least this many
        /// checks. Building one already takes longer than the trial target, so calibration leaves
        /// the engine at this minimum: it must be large enough that the checks just after the
        /// engine's start (cold caches, a delivery thread not yet spinning) do not make the figure.
        var engineMinimumChecks: Int

        init(_ options: BenchOptions) {
            if let callbacks = options.callbacks {
                callbackCounts = [max(callbacks, 1)]
            } else {
                callbackCounts = options.quick ? PeersScenario.quickCallbackCounts : PeersScenario.defaultCallbackCounts
            }
            trials = options.quick ? 7 : 15
            trialTargetNanoseconds = options.quick ? 10_000_000 : 20_000_000
            engineMinimumChecks = options.quick ? 30 : 50
            spinWindow = FanoutProbe.spinWindow(for: options)
        }
    }

    /// Why a mechanism stopped being measured.
    enum Failure {
        /// A subscriber missed a notification (or a notification did not reach all in time).
        case loss(String)
        /// Building or running the mechanism threw.
        case error(String)

        /// How the notes name it.
        var label: String {
            switch self {
            case .loss: "Loss detected"
            case .error: "Failed"
            }
        }

        /// What happened.
        var detail: String {
            switch self {
            case .loss(let detail), .error(let detail): detail
            }
        }
    }

    /// One mechanism's trials at one N.
    struct MechanismResult {
        var name: String
        var timedSpan: String
        /// Notifications per trial, from calibration.
        var rounds = 0
        /// Mean time per notification of each trial, in ns.
        var trialMeans: [Double] = []
        /// Every recorded notification of every trial.
        var recorder = LatencyRecorder()
        /// Spinning per notification of each trial, in ns, for a mechanism that reports it.
        var trialSpins: [Double] = []
        /// Why the mechanism stopped; its numbers are not reported.
        var failure: Failure?

        var trials: Int { trialMeans.count }

        /// The median over trials of each trial's mean time per notification, unless the mechanism
        /// failed.
        var median: Double? {
            guard failure == nil else { return nil }
            return Self.median(of: trialMeans)
        }

        /// The median over trials of the spinning per notification, if the mechanism reports it.
        var medianSpin: Double? { Self.median(of: trialSpins) }

        private static func median(of values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
    }

    private func makeMechanisms(callbacks: Int, plan: Plan) -> [any PeerMechanism] {
        var mechanisms: [any PeerMechanism] = [
            EnginePeer(callbacks: callbacks, minimumChecks: plan.engineMinimumChecks),
            EnginePeer(callbacks: callbacks, minimumChecks: plan.engineMinimumChecks, setup: .parallel),
            EnginePeer(callbacks: callbacks, minimumChecks: plan.engineMinimumChecks, setup: .orderedSpinning, spinWindow: plan.spinWindow),
            ClosureLoopPeer(callbacks: callbacks),
            NotificationCenterPeer(callbacks: callbacks),
            OpenCombinePeer(callbacks: callbacks),
            DispatchPerCallbackPeer(callbacks: callbacks),
        ]
        if callbacks <= Self.asyncStreamLimit { mechanisms.append(AsyncStreamPeer(callbacks: callbacks)) }
        return mechanisms
    }

    /// Builds every mechanism for `callbacks` subscribers, calibrates each, runs the interleaved
    /// trials, and tears everything down before returning.
    private func measure(callbacks: Int, plan: Plan) -> [MechanismResult] {
        let mechanisms = makeMechanisms(callbacks: callbacks, plan: plan)
        defer { for mechanism in mechanisms { mechanism.tearDown() } }
        var results = mechanisms.map { MechanismResult(name: $0.name, timedSpan: $0.timedSpan) }

        for (index, mechanism) in mechanisms.enumerated() {
            do {
                let (rounds, loss) = try calibrate(mechanism, target: plan.trialTargetNanoseconds)
                results[index].rounds = rounds
                results[index].failure = loss.map(Failure.loss)
            } catch {
                results[index].failure = .error("\(error)")
            }
        }

        for trial in 0..<plan.trials {
            for offset in 0..<mechanisms.count {
                let index = (trial + offset) % mechanisms.count
                guard results[index].failure == nil else { continue }
                do {
                    let outcome = try mechanisms[index].trial(rounds: results[index].rounds)
                    if let loss = outcome.loss {
                        results[index].failure = .loss(loss)
                        continue
                    }
                    results[index].trialMeans.append(outcome.perNotification.histogram.mean)
                    if let spin = outcome.spinNanosecondsPerNotification { results[index].trialSpins.append(spin) }
                    results[index].recorder.merge(outcome.perNotification)
                } catch {
                    results[index].failure = .error("\(error)")
                }
            }
        }
        return results
    }

    /// The number of notifications per trial that makes a trial last at least `target` (wall time),
    /// found by growing it from `minimumRounds`; the last calibration trial, at the final size,
    /// doubles as the warm-up. Returns a loss if calibration saw one.
    private func calibrate(_ mechanism: any PeerMechanism, target: UInt64) throws -> (rounds: Int, loss: String?) {
        let limit = 10_000_000
        var rounds = mechanism.minimumRounds
        while true {
            let start = monotonicNanoseconds()
            let outcome = try mechanism.trial(rounds: rounds)
            let wall = max(monotonicNanoseconds() - start, 1)
            if let loss = outcome.loss { return (rounds, loss) }
            if wall >= target || rounds >= limit { return (rounds, nil) }
            // Scale to the target with a quarter to spare, at least doubling so that a trial with a
            // large fixed cost (the engine's setup) still converges.
            let scaled = Double(rounds) * Double(target) * 1.25 / Double(wall)
            rounds = min(limit, max(rounds * 2, Int(scaled.rounded(.up))))
        }
    }
}
