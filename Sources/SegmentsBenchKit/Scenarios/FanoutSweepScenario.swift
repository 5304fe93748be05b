import Foundation
import RealtimeSegments

/// `fanout-sweep`: one change delivered to 1 … 100,000 callbacks.
public struct FanoutSweepScenario: Scenario {
    public init() {}
    public let name = "fanout-sweep"
    public let honouredOptions: Set<BenchOptionName> = [.callbacks, .spinWindowMs, .fetchDelayMs]
    public let needsMockIntrospection: String? = "the mock backend's scripted segment changes (a new segment set for every check)"
    public let needsSegmentsClient: String? = "delivery modes (ordered and parallel) and its callbacks' registry"
    public let simulates = simulated(sizes: [1, 10, 100, 1_000, 10_000, 100_000])

    /// What a run over `sizes` simulates, as the report's summary says it.
    static func simulated(sizes: [Int]) -> String {
        let spelled = sizes.map { $0 >= 1_000 && $0 % 1_000 == 0 ? "\($0 / 1_000)k" : "\($0)" }.joined(separator: ", ")
        return "one segment change delivered to N = \(spelled) callback\(sizes == [1] ? "" : "s") of one category"
    }
    public let measures = "data received → first and last callback (fan-out latency), again with a delivery spin window (\(FanoutProbe.label(FanoutProbe.spinWindow)), or --spin-window-ms) and its CPU cost, where the first callback's time goes without and with the window (data received → applying → diffed → built → delivery started → first callback, stamped in runs of their own), its ratio to a plain closure loop in the same run, allocations per check against N, parallel delivery at large N, deliveries to 10k callbacks while others are added and removed 10k times a second, checks that come long after the last delivery (more than the window apart, the mock answering after --fetch-delay-ms, default 1 ms) without and with the window, with their stages stamped too, this machine's thread wake-up on the same and on another CPU (the floor of a delivery without a window), and how far a thread's own data is after it idled as long as a sparse check's engine (the floor of a sparse check's own work)"

    /// The allocation growth is taken between these two N, so that the quick sweep (the gate's
    /// baseline) and the full sweep report the same figure.
    static let growthSizes = [1, 10_000]
    /// The figures of that growth: extra allocations per callback notified, and per check.
    static let growthFigures = ["fanout-sweep.allocsPerCallbackNotified", "fanout-sweep.allocsPerCheckGrowth"]

    static func allocsPerCheckFigure(_ size: Int) -> String { "fanout-sweep.N\(size).allocsPerCheck" }
    static func parallelAllocsPerCheckFigure(_ size: Int) -> String { "fanout-sweep.N\(size).parallelAllocsPerCheck" }

    /// Checks of each unmeasured warm-up engine that runs before the first measured N.
    static let warmUpChecks = 20

    /// The figures of a run with the stages stamped, named `prefix.…`: each stage's p50, and that
    /// run's own first-callback p50 (with the stamps' clock reads in it). `windowLabel` names the
    /// spin window of the run, `nil` for a run without one; `setting` says what else the run was.
    static func breakdownFigures(
        _ staged: FanoutProbe.EngineMeasurement, prefix: String, size: Int, windowLabel: String?, setting: String? = nil
    ) -> [Figure] {
        // A run without a completed check has no latency: a p50 of an empty recorder would read 0 ns.
        guard staged.complete, staged.first.count > 0 else { return [] }
        let run = [setting, runLabel(windowLabel)].compactMap { $0 }.joined(separator: ", ")
        var figures = NotificationStages.Stage.allCases.compactMap { stage -> Figure? in
            guard let p50 = staged.stages?.p50(of: stage) else { return nil }
            return Figure(name: "\(prefix).\(stage.rawValue)P50Ns", value: Double(p50), unit: "ns",
                          summary: "\(stage.summary), p50, N=\(size), \(run)")
        }
        if windowLabel != nil {
            figures.append(Figure(name: "\(prefix).handedOffShare", value: staged.handedOffShare, unit: "of checks",
                                  summary: "checks of that run whose delivery started on the still-spinning thread (the rest woke one), N=\(size)"))
        }
        let first = staged.first.summary("", definition: "")
        figures.append(Figure(name: "\(prefix).firstCallbackP50Ns", value: Double(first.p50), unit: "ns",
                              summary: "data received → first callback, p50, N=\(size), \(run), the run with the stages stamped (four clock reads more per check)"))
        return figures
    }

    /// How a figure's summary names a run's spin window (`windowLabel`, `nil` for none).
    static func runLabel(_ windowLabel: String?) -> String {
        windowLabel.map { "deliverySpinWindow \($0)" } ?? "no spin window"
    }

    /// How long the mock takes to answer a fetch in the sparse-check runs without `--fetch-delay-ms`:
    /// a segments backend a millisecond away.
    static let sparseFetchDelayMs = 1.0

    /// How long the sparse checks' thread idles before each check: two milliseconds more than the
    /// spin window, so that the window after the last delivery has closed.
    static func sparseSpacing(window: Duration) -> Duration { window + .milliseconds(2) }

    /// Checks that come long after the last delivery, as they do with a debounce of seconds: at
    /// N = 1, each check starts two milliseconds more than the spin window after the one before
    /// ended, and the mock answers its fetch after `--fetch-delay-ms` (default
    /// ``sparseFetchDelayMs``). Without the window and with it: with it, the thread that delivers
    /// is woken as the check's fetch starts and spins for the delivery.
    static func sparseChecks(options: BenchOptions, window: Duration, progress: Progress, notes: inout [String]) throws -> [Figure] {
        let delayMs = options.fetchDelayMs ?? sparseFetchDelayMs
        let fetchDelay = Duration.milliseconds(delayMs)
        let spacing = sparseSpacing(window: window)
        let checks = options.quick ? 20 : 50
        let windowLabel = FanoutProbe.label(window)
        let setting = "N=1, checks \(FanoutProbe.label(spacing)) apart, fetch answered after \(delayMs) ms"
        var figures: [Figure] = []
        var complete = true
        for spinWindow in [Duration.zero, window] {
            let label = spinWindow > .zero ? windowLabel : nil
            let run = Self.runLabel(label)
            progress.say("sparse checks: \(setting), \(run)")
            let measured = try FanoutProbe.engine(
                targets: FanoutTargets(count: 1), checks: checks, mode: .ordered, floorRounds: true, spinWindow: spinWindow,
                fetchDelay: fetchDelay, checkSpacing: spacing)
            complete = complete && measured.complete
            let first = measured.first.summary("", definition: "")
            let prefix = spinWindow > .zero ? "fanout-sweep.sparse.spin" : "fanout-sweep.sparse"
            if measured.complete, measured.first.count > 0 {
                figures.append(Figure(name: "\(prefix).firstCallbackP50Ns", value: Double(first.p50), unit: "ns",
                                      summary: "data received → first callback, p50, \(setting), \(run)"))
            }
            // Once more with the stages stamped: where a sparse check's first callback waits.
            let staged = try FanoutProbe.engine(
                targets: FanoutTargets(count: 1), checks: checks, mode: .ordered, floorRounds: true, spinWindow: spinWindow,
                stampingStages: true, fetchDelay: fetchDelay, checkSpacing: spacing)
            complete = complete && staged.complete
            figures += Self.breakdownFigures(
                staged, prefix: "\(prefix).breakdown", size: 1, windowLabel: label, setting: "sparse checks")
            if spinWindow > .zero {
                figures += [
                    Figure(name: "\(prefix).handedOffShare", value: measured.handedOffShare, unit: "of checks",
                           summary: "checks of that run whose delivery started on a spinning thread, without a wake-up after the fetch"),
                    Figure(name: "\(prefix).spinNsPerCheck", value: measured.spinNanosecondsPerCheck, unit: "ns",
                           summary: "CPU time the delivery thread spent spinning per check (the window's price), \(setting)"),
                ]
            }
        }
        if !complete { notes.append("Sparse checks: a check did not reach its callback") }
        figures.append(Figure(name: "fanout-sweep.sparse.incomplete", value: complete ? 0 : 1, unit: "count", gate: .zero,
                              summary: "1 if a sparse check, without or with the window, did not reach its callback exactly once"))
        return figures
    }

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let sizes: [Int]
        if let callbacks = options.callbacks {
            sizes = [callbacks]
        } else {
            sizes = options.quick ? [1, 100, 1_000, 10_000] : [1, 10, 100, 1_000, 10_000, 100_000]
        }
        var figures: [Figure] = []
        var latencies: [LatencySummary] = []
        var ordered: [ChartSeries.Point] = []
        var parallel: [ChartSeries.Point] = []
        var floor: [ChartSeries.Point] = []
        var allocations: [ChartSeries.Point] = []
        // Each stage's p50 against N, for the breakdown runs without (false) and with (true) the window.
        var breakdownPoints: [Bool: [NotificationStages.Stage: [ChartSeries.Point]]] = [:]
        var notes: [String] = []
        // The figures a check that lost a callback leaves unmeasured (see the gate's `unmeasured`).
        var unmeasured: [String] = []
        // A process's first engine runs with the process's one-time costs and on a host in
        // another state than the later ones (threads just made, cores not yet idle), and its
        // figures were unlike every later N's: one unmeasured engine of each kind goes first.
        progress.say("warm-up: \(Self.warmUpChecks) unmeasured checks without and with the spin window")
        let window = FanoutProbe.spinWindow(for: options)
        let windowLabel = FanoutProbe.label(window)
        for spinWindow in [Duration.zero, window] {
            _ = try FanoutProbe.engine(
                targets: FanoutTargets(count: 1), checks: Self.warmUpChecks, mode: .ordered, floorRounds: true, spinWindow: spinWindow)
        }
        for size in sizes {
            let checks = max(5, min(options.quick ? 20 : 50, 2_000_000 / max(size, 1)))
            progress.say("N = \(size): \(checks) checks")
            let targets = FanoutTargets(count: size)
            let engine = try FanoutProbe.engine(targets: targets, checks: checks, mode: .ordered, floorRounds: true)
            let closures = engine.floor
            let last = engine.last.summary("last callback N=\(size)", definition: "data received → last callback")
            let first = engine.first.summary("first callback N=\(size)", definition: "data received → first callback")
            let floorP50 = Double(closures.summary("floor", definition: "").p50)
            // The floor calls the very same closures from a plain loop, alternating with the checks.
            // The engine's time also includes handing the check to the delivery thread, which
            // matters at small N only.
            let ratio = Double(last.p50) / max(floorP50, 1)
            // A run in which a check did not complete has no latency to report (an empty
            // recorder's p50 would read 0 ns); its `incomplete` figure fails the gate.
            let measured = engine.complete && engine.last.count > 0
            if !engine.complete { notes.append("N=\(size): a check did not reach every callback; its latency is omitted") }
            if measured { figures += [
                Figure(name: "fanout-sweep.N\(size).lastCallbackP50Ns", value: Double(last.p50), unit: "ns",
                       restates: last.comparedName("p50", in: name),
                       summary: "data received → last callback, p50, N=\(size)"),
                Figure(name: "fanout-sweep.N\(size).firstCallbackP50Ns", value: Double(first.p50), unit: "ns",
                       restates: first.comparedName("p50", in: name), summary: "data received → first callback, p50, N=\(size)"),
                Figure(name: "fanout-sweep.N\(size).nsPerCallback", value: Double(last.p50) / Double(size), unit: "ns",
                       summary: "data received → last callback p50 / N, N=\(size): the fan-out's time per callback with the hand-off to the delivery thread spread over it (dominant at small N)"),
                Figure(name: "fanout-sweep.N\(size).ratioToClosureLoop", value: ratio, unit: "ratio",
                       // Wall-clock: reported, not gated in one run (it moves with the machine's
                       // load); `segments-bench compare` judges it over repetitions, and the
                       // `costs` scenario gates the delivery loop's instructions.
                       gate: nil,
                       direction: .lowerIsBetter, summary: "engine last-callback p50 over a plain closure loop of N=\(size) in this run"),
            ] }
            figures += [
                Figure(name: "fanout-sweep.N\(size).incomplete", value: engine.complete ? 0 : 1, unit: "count", gate: .zero,
                       summary: "1 if a check did not complete or a callback was not called exactly once"),
            ]
            if !engine.complete {
                unmeasured.append(Self.allocsPerCheckFigure(size))
                if Self.growthSizes.contains(size) { unmeasured += Self.growthFigures }
            }
            if let perCheck = engine.allocationsPerCheck {
                figures.append(Figure(name: Self.allocsPerCheckFigure(size), value: perCheck, unit: "allocs/check",
                                      gate: .lowerIsBetter(relative: 0.1, absolute: 2),
                                      summary: "malloc calls per check (upload, fetch, diff, delivery), N=\(size)"))
                allocations.append(.init(x: Double(size), y: perCheck))
            }
            // Again with a delivery spin window: the next check's delivery finds its thread awake.
            progress.say("N = \(size): \(checks) checks, \(windowLabel) delivery spin window")
            let spun = try FanoutProbe.engine(targets: targets, checks: checks, mode: .ordered, floorRounds: true, spinWindow: window)
            let spunFirst = spun.first.summary("first callback N=\(size), spin window", definition: "data received → first callback, \(windowLabel) spin window")
            let spunLast = spun.last.summary("last callback N=\(size), spin window", definition: "data received → last callback, \(windowLabel) spin window")
            let spunMeasured = spun.complete && spun.last.count > 0
            if !spun.complete { notes.append("N=\(size), spin window: a check did not reach every callback; its latency is omitted") }
            if spunMeasured { figures += [
                Figure(name: "fanout-sweep.N\(size).spin.firstCallbackP50Ns", value: Double(spunFirst.p50), unit: "ns",
                       summary: "data received → first callback, p50, N=\(size), deliverySpinWindow \(windowLabel)"),
                Figure(name: "fanout-sweep.N\(size).spin.lastCallbackP50Ns", value: Double(spunLast.p50), unit: "ns",
                       summary: "data received → last callback, p50, N=\(size), deliverySpinWindow \(windowLabel)"),
                Figure(name: "fanout-sweep.N\(size).spin.spinNsPerCheck", value: spun.spinNanosecondsPerCheck, unit: "ns",
                       summary: "CPU time the delivery thread spent spinning per check (the window's price), N=\(size)"),
                Figure(name: "fanout-sweep.N\(size).spin.handedOffShare", value: spun.handedOffShare, unit: "of checks",
                       summary: "checks whose delivery started on the still-spinning thread, without a wake-up, N=\(size)"),
            ] }
            figures += [
                Figure(name: "fanout-sweep.N\(size).spin.incomplete", value: spun.complete ? 0 : 1, unit: "count", gate: .zero,
                       summary: "1 if a check with the spin window did not complete or a callback was not called exactly once"),
            ]
            // Twice more, with the engine stamping each check's stages: where the first callback's
            // time goes, with a delivery thread to wake and with one spinning. Runs of their own,
            // so that the clock reads stay out of the figures above.
            for breakdownWindow in [Duration.zero, window] {
                let label = breakdownWindow > .zero ? windowLabel : nil
                progress.say("N = \(size): \(checks) checks, \(label.map { "\($0) delivery spin window" } ?? "no spin window"), stages stamped")
                let staged = try FanoutProbe.engine(
                    targets: targets, checks: checks, mode: .ordered, floorRounds: true, spinWindow: breakdownWindow,
                    stampingStages: true)
                figures += Self.breakdownFigures(
                    staged, prefix: "fanout-sweep.N\(size)\(label == nil ? "" : ".spin").breakdown", size: size,
                    windowLabel: label)
                for stage in NotificationStages.Stage.allCases {
                    guard let p50 = staged.stages?.p50(of: stage) else { continue }
                    breakdownPoints[label != nil, default: [:]][stage, default: []].append(.init(x: Double(size), y: Double(p50)))
                }
                let run = "N=\(size), breakdown run \(label == nil ? "without" : "with") the spin window"
                if !staged.complete { notes.append("\(run): a check did not reach every callback") }
                if let unstamped = staged.stages?.unstampedChecks, unstamped > 0 {
                    notes.append("\(run): \(unstamped) of \(checks) checks lacked a stamp; their stages are left out")
                }
            }
            if measured {
                ordered.append(.init(x: Double(size), y: Double(last.p50)))
                floor.append(.init(x: Double(size), y: floorP50))
                if size == sizes.last { latencies += [first, last] }
            }
            if size >= 10_000 {
                progress.say("N = \(size): parallel delivery")
                let parallelRun = try FanoutProbe.engine(targets: targets, checks: checks, mode: .parallel, floorRounds: true)
                figures.append(
                    Figure(name: "fanout-sweep.N\(size).parallelIncomplete", value: parallelRun.complete ? 0 : 1, unit: "count", gate: .zero,
                           summary: "1 if a check of the parallel delivery did not complete or a callback was not called exactly once, N=\(size)"))
                if parallelRun.complete {
                    let parallelP50 = Double(parallelRun.last.summary("", definition: "").p50)
                    let parallelFloorP50 = Double(parallelRun.floor.summary("", definition: "").p50)
                    parallel.append(.init(x: Double(size), y: parallelP50))
                    figures.append(
                        Figure(name: "fanout-sweep.N\(size).parallelToFloor", value: parallelP50 / max(parallelFloorP50, 1), unit: "ratio",
                               direction: .lowerIsBetter, summary: "parallel delivery last-callback p50 over the single-threaded closure loop, N=\(size)"))
                } else {
                    notes.append("N=\(size): a check of the parallel delivery did not reach every callback; its latency is omitted")
                }
                if !parallelRun.complete { unmeasured.append(Self.parallelAllocsPerCheckFigure(size)) }
                if let perCheck = parallelRun.allocationsPerCheck {
                    figures.append(Figure(name: Self.parallelAllocsPerCheckFigure(size), value: perCheck, unit: "allocs/check",
                                          gate: .lowerIsBetter(relative: 0.1, absolute: 2),
                                          summary: "malloc calls per check with parallel delivery (upload, fetch, diff, delivery on every core), N=\(size)"))
                }
            }
        }
        figures += try Self.sparseChecks(options: options, window: window, progress: progress, notes: &notes)
        if let callbacks = options.callbacks {
            notes.append("--callbacks \(callbacks): N = \(callbacks) alone instead of the sweep, and no registration-churn phase (it runs at 10k callbacks in the sweep)")
        } else {
            let stable = 10_000
            let rate = 10_000.0
            progress.say("N = \(stable): deliveries while another thread adds and removes a callback \(Int(rate)) times a second")
            let churnTargets = FanoutTargets(count: stable)
            let churnChecks = options.quick ? 20 : 50
            let calm = try FanoutProbe.churn(targets: churnTargets, checks: churnChecks, pairsPerSecond: 0)
            let churn = try FanoutProbe.churn(targets: churnTargets, checks: churnChecks, pairsPerSecond: rate)
            let add = churn.add.summary("addCallback during fan-out", definition: "addCallback call, \(stable) callbacks registered, deliveries running")
            let remove = churn.remove.summary("removeCallback during fan-out", definition: "removeCallback call, \(stable) callbacks registered, deliveries running")
            let delivery = churn.delivery.summary("change → last callback under churn", definition: "server-side change → last of \(stable) stable callbacks, registration churn running")
            let calmDelivery = calm.delivery.summary(
                "change → last callback without churn", definition: "server-side change → last of \(stable) stable callbacks, the same run without churn")
            latencies += [add, remove, delivery, calmDelivery]
            let calmP50 = Double(calmDelivery.p50)
            if !churn.complete { notes.append("Churn: a check did not reach every stable callback exactly once") }
            figures += [
                Figure(name: "fanout-sweep.churn.incomplete", value: churn.complete && calm.complete ? 0 : 1, unit: "count", gate: .zero,
                       summary: "1 if, with registration churn running, any change missed a stable callback or reached one twice"),
                Figure(name: "fanout-sweep.churn.pairsPerSecond", value: churn.pairsPerSecond, unit: "ops/s",
                       summary: "add + remove pairs per second the churn thread achieved (target \(Int(rate)))"),
                // Judged by `compare`: a registry whose add or remove copies every registration
                // again falls to under a tenth of the rate at 10,000 callbacks; a busy machine
                // costs a few percent.
                Figure(name: "fanout-sweep.churn.achievedToTarget", value: churn.pairsPerSecond / rate, unit: "ratio",
                       direction: .higherIsBetter, summary: "add + remove pairs achieved per second over the \(Int(rate)) asked for (1: the registry kept up)"),
                Figure(name: "fanout-sweep.churn.deliveryP50Ns", value: Double(delivery.p50), unit: "ns",
                       restates: delivery.comparedName("p50", in: name),
                       summary: "server-side change → last of \(stable) stable callbacks, p50, churn running"),
                Figure(name: "fanout-sweep.churn.calmDeliveryP50Ns", value: calmP50, unit: "ns",
                       restates: calmDelivery.comparedName("p50", in: name),
                       summary: "server-side change → last of \(stable) stable callbacks, p50, the same run without churn"),
                Figure(name: "fanout-sweep.churn.deliveryToCalm", value: Double(delivery.p50) / max(calmP50, 1), unit: "ratio",
                       direction: .lowerIsBetter, summary: "that p50 over the same measurement without churn, same run, each check asked for by a registration (1: churn costs deliveries nothing)"),
            ]
            // p99.9 only with 1,000 calls or more (see LatencySummary): fewer give the maximum.
            if let p999 = add.p999 {
                figures.append(Figure(name: "fanout-sweep.churn.addP999Ns", value: Double(p999), unit: "ns",
                                      summary: "addCallback p99.9 with \(stable) callbacks registered and deliveries running"))
            }
            if let p999 = remove.p999 {
                figures.append(Figure(name: "fanout-sweep.churn.removeP999Ns", value: Double(p999), unit: "ns",
                                      summary: "removeCallback p99.9 with \(stable) callbacks registered and deliveries running"))
            }
        }
        // The floor of every delivery that starts on a sleeping thread, on this machine now: the
        // delivery thread woken on the engine's CPU (it runs when the engine yields) or on the
        // other, idle one (that CPU is woken first). A check without a window pays one or the
        // other, as the kernel places the delivery thread. After the engines, because measured
        // first it changed where the kernel put their delivery threads (performance notes).
        for placement in ThreadWakeFloor.Placement.allCases {
            let side = placement.words
            progress.say("thread wake-up, \(side): a parked thread signalled after a millisecond idle")
            guard let wake = ThreadWakeFloor.measure(rounds: options.quick ? 100 : 300, placement: placement) else {
                notes.append("Thread wake-up, \(side): threads could not be pinned here; not measured")
                continue
            }
            let key = placement.figureKey
            let wakeToRun = wake.wakeToRun.summary(
                "thread wake-up, \(side)", definition: "semaphore signal → the parked thread runs, \(side), after 1 ms idle")
            let signal = wake.signal.summary(
                "signalling a parked thread, \(side)", definition: "time inside the semaphore signal that wakes it, \(side)")
            latencies += [wakeToRun, signal]
            figures += [
                Figure(name: "fanout-sweep.floor.threadWake\(key)P50Ns", value: Double(wakeToRun.p50), unit: "ns",
                       restates: wakeToRun.comparedName("p50", in: name),
                       summary: "signal → a parked thread on the \(side) runs, p50, after 1 ms idle (no engine)"),
                Figure(name: "fanout-sweep.floor.threadWake\(key)SignalP50Ns", value: Double(signal.p50), unit: "ns",
                       restates: signal.comparedName("p50", in: name),
                       summary: "time the signalling thread spends in that signal, p50, \(side) (what waking costs the waker)"),
            ]
        }
        // The floor of a sparse check's own work: how far a thread's data is once it has idled
        // as long as the sparse checks' engine does.
        let idle = Self.sparseSpacing(window: window)
        progress.say("memory after idling: a walk through 256 cache lines (16 KiB), straight after the last one and after \(FanoutProbe.label(idle)) idle")
        let memory = CacheAfterIdleFloor.measure(rounds: options.quick ? 50 : 100, idle: idle)
        figures += [
            Figure(name: "fanout-sweep.floor.cacheLineHotNs", value: median(memory.hot), unit: "ns",
                   summary: "one dependent load of a thread's own data, walked straight after the last walk, median per round (no engine)"),
            Figure(name: "fanout-sweep.floor.cacheLineAfterIdleNs", value: median(memory.afterIdle), unit: "ns",
                   summary: "the same load after the thread idled \(FanoutProbe.label(idle)), as the sparse checks' engine does: what a check's cold work pays per line"),
        ]
        if let small = allocations.first(where: { $0.x == Double(Self.growthSizes[0]) }),
           let large = allocations.first(where: { $0.x == Double(Self.growthSizes[1]) }) {
            figures.append(Figure(name: Self.growthFigures[0], value: (large.y - small.y) / (large.x - small.x),
                                  unit: "allocs/op",
                                  summary: "extra allocations per additional callback notified, N = 1 → 10,000 (0: none per callback)"))
            figures.append(Figure(name: Self.growthFigures[1], value: large.y - small.y, unit: "allocs/check",
                                  gate: .lowerIsBetter(relative: 0, absolute: 10),
                                  summary: "allocations per check at N = 10,000 minus at N = 1 (0: no per-callback allocation)"))
        }
        if !AllocationProbe.isAvailable { notes.append(AllocationProbe.unavailableNote) }
        var series = [
            ChartSeries(chart: "fanout-latency", label: "engine (ordered)", xLabel: "callbacks", yLabel: "ns, data received → last callback", points: ordered),
            ChartSeries(chart: "fanout-latency", label: "closure loop (floor)", xLabel: "callbacks", yLabel: "ns, data received → last callback", points: floor),
        ]
        if !parallel.isEmpty {
            series.append(ChartSeries(chart: "fanout-latency", label: "engine (parallel)", xLabel: "callbacks", yLabel: "ns, data received → last callback", points: parallel))
        }
        for spun in [false, true] {
            for stage in NotificationStages.Stage.allCases {
                guard let points = breakdownPoints[spun]?[stage] else { continue }
                series.append(ChartSeries(
                    chart: spun ? "first-callback-breakdown-spin-window" : "first-callback-breakdown", label: stage.rawValue,
                    xLabel: "callbacks", yLabel: "ns, p50, \(spun ? "\(windowLabel) spin window" : "no spin window")", points: points))
            }
        }
        if !allocations.isEmpty {
            series.append(ChartSeries(chart: "allocations-per-check", label: "engine", xLabel: "callbacks", yLabel: "malloc calls per check", points: allocations))
        }
        var configuration = options.configuration(honouring: honouredOptions)
        configuration["breakdown"] = "two more runs at each N and of the sparse checks, without and with the spin window, the engine stamping each check's stages"
        configuration["warmUp"] = "\(Self.warmUpChecks) checks at N=1 without and with the spin window, unmeasured"
        return ScenarioResult(
            scenario: name, summary: "\(Self.simulated(sizes: sizes)). Measures \(measures).", configuration: configuration,
            figures: figures, latencies: latencies, series: series, allocationsMeasured: AllocationProbe.isAvailable,
            notes: notes, unmeasuredAfterViolation: unmeasured)
    }
}
