import Atomics
import Foundation
@_spi(Benchmarks) import RealtimeSegments
import RealtimeSegmentsTesting

/// A hot path whose cost per operation is counted in instructions, retains, releases and
/// allocations under valgrind's callgrind (see ``CostProbe``): counts that do not move with the
/// machine's load, so the gate can hold them to a few percent.
///
/// Each region runs its operation `iterations` times inside one function that is never inlined,
/// whose name callgrind is told to collect in (``toggleFunctions``); setup and warm-up happen
/// outside it. A region that runs on engine threads (``check``) names the engine functions the
/// work runs in instead. Collection is per thread, so only the counted functions' own thread's
/// work is counted, never the harness's waiting.
public enum CostRegion: String, CaseIterable, Sendable {
    /// `trackEvent` without properties, on the app's thread.
    case trackEvent
    /// `trackEvent` with a dictionary the app passes to every call.
    case trackEventWithProperties
    /// One reload request (the flag behind registrations and tracked events) and the engine's take
    /// of it: every request sets the flag.
    case reloadRequest
    /// The equal-set compare of two packed sets of 1,000 24-hex segments, per segment.
    case packedDiff
    /// Decode a 3 × 10 response and diff it with the previous, equal one.
    case decodeAndDiff
    /// One callback of an ordered delivery to 10,000 callbacks, through the engine's delivery loop.
    case delivery
    /// One whole check with one callback: launching the fetch task, its steps (the fetch, applying
    /// the response: diff, state, scheduling; the task's end) and the delivery, on the engine and
    /// delivery threads.
    case check

    /// What one operation is, for figure summaries.
    public var operation: String {
        switch self {
        case .trackEvent: "trackEvent without properties"
        case .trackEventWithProperties: "trackEvent with a shared properties dictionary"
        case .reloadRequest: "reload request (flag set) and its take"
        case .packedDiff: "segment of an equal-set compare of 1,000 packed segments"
        case .decodeAndDiff: "decode + diff of an unchanged 3 × 10 response"
        case .delivery: "callback of an ordered delivery to 10,000 callbacks"
        case .check: "check with one callback (launch, fetch, apply, deliver)"
        }
    }

    /// Operations per iteration of the region's loop.
    var operationsPerIteration: Int {
        switch self {
        case .packedDiff: Self.diffSegments
        case .delivery: Self.deliveryCallbacks
        default: 1
        }
    }

    /// Iterations the probe runs (and twice as many, to subtract fixed costs).
    var iterations: Int {
        switch self {
        case .trackEvent, .trackEventWithProperties: 100_000
        case .reloadRequest: 20_000
        case .packedDiff: 200
        case .decodeAndDiff: 500
        case .delivery: 4
        case .check: 100
        }
    }

    /// How the gate holds the region's instruction count. With a fixed hash seed the same build
    /// counts the same on every path to a few tenths of an instruction per operation, except a
    /// whole check, whose Swift concurrency and Dispatch hand-offs take slightly different paths
    /// from run to run (about 0.3%): its changes are caught by its allocation and retain counts,
    /// its instructions held loosely.
    public var instructionRule: GateRule {
        switch self {
        case .check: .lowerIsBetter(relative: 0.05, absolute: 0)
        default: .lowerIsBetter(relative: 0.01, absolute: 0.3)
        }
    }

    /// How the gate holds the region's releases per operation: one more fails, except in a whole
    /// check, where which thread drops an object's last reference (inside the counted functions or
    /// after them) varies by tens of releases from run to run: reported, not gated.
    public var releaseRule: GateRule? {
        self == .check ? nil : CostsScenario.countRule
    }

    /// Callgrind `--toggle-collect` patterns (mangled Swift names): collection is on inside them.
    var toggleFunctions: [String] {
        switch self {
        case .check:
            // Never nested in one another here, where checks do not overlap (a counted function
            // entered inside another turns collection off). The fetch task's steps on the engine
            // thread include the fetch, the response applied in place and the task's end; a
            // result that comes through the inbox instead is applied in the last one.
            [
                "*11EngineOwnerC11launchFetch*", "*18EngineTaskExecutorC7runStep*",
                "*11EngineOwnerC26handlePostedFetchCompleted*", "*16DeliveryExecutorC11runDelivery*",
            ]
        default:
            // The counted function's mangled name: the type, then the name's length and the name.
            ["*10CostRegionO\(countedFunction.utf8.count)\(countedFunction)*"]
        }
    }

    /// The name of the function the region's loop runs in (`measuredTrackEvent`, …).
    var countedFunction: String { "measured" + rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    static let diffSegments = 1_000
    static let deliveryCallbacks = 10_000

    /// Runs the region: setup, a warm-up, then `iterations` iterations inside the counted function.
    public func run(iterations: Int) throws {
        switch self {
        case .trackEvent, .trackEventWithProperties:
            let engine = try EngineUnderTest.make(transport: .memory, debounce: .seconds(3_600)) { configuration in
                configuration.ingestCapacity = 1 << 20
            }
            defer { engine.shutdown() }
            engine.client.start()
            let properties: [String: JSONValue] = ["sku": .string("A-1"), "price": .number(9.5)]
            if self == .trackEvent {
                try Self.measuredTrackEvent(engine.client, iterations: 1_000)
                _ = engine.client.waitUntilIdle(timeout: .seconds(60))
                try Self.measuredTrackEvent(engine.client, iterations: iterations)
            } else {
                try Self.measuredTrackEventWithProperties(engine.client, properties, iterations: 1_000)
                _ = engine.client.waitUntilIdle(timeout: .seconds(60))
                try Self.measuredTrackEventWithProperties(engine.client, properties, iterations: iterations)
            }
            _ = engine.client.waitUntilIdle(timeout: .seconds(60))
        case .reloadRequest:
            let channels = EngineChannels(ringCapacity: 16)
            Self.measuredReloadRequest(channels, iterations: iterations)
        case .packedDiff:
            let segments = (0..<Self.diffSegments).map(HotPathScenario.hexSegment)
            let previous = PackedSegmentSet(segments)
            let next = PackedSegmentSet(segments.reversed())
            precondition(previous.isPacked && previous == next)
            Self.measuredPackedDiff(previous, next, iterations: iterations)
        case .decodeAndDiff:
            let body = Array(HotPathScenario.responseBody().utf8)
            let customerIds = ["cookie": "cost-cookie"]
            let previous = LastKnownState(customerIds: customerIds, response: try SegmentsResponseDecoder.decode(body))
            try Self.measuredDecodeAndDiff(body, customerIds: customerIds, previous: previous, iterations: iterations)
        case .delivery:
            let targets = FanoutTargets(count: Self.deliveryCallbacks)
            let delivery = SynchronousDelivery(callbacks: targets.registrations)
            let payload = FanoutProbe.payload(variant: 0)
            precondition(delivery.deliver(payload, to: .discovery) == Self.deliveryCallbacks)
            Self.measuredDelivery(delivery, payload, iterations: iterations)
        case .check:
            try Self.runChecks(iterations: iterations)
        }
    }

    @inline(never)
    static func measuredTrackEvent(_ client: SegmentsClient, iterations: Int) throws {
        for _ in 0..<iterations { try client.trackEvent(eventType: "view_item") }
    }

    @inline(never)
    static func measuredTrackEventWithProperties(
        _ client: SegmentsClient, _ properties: [String: JSONValue], iterations: Int
    ) throws {
        for _ in 0..<iterations { try client.trackEvent(eventType: "view_item", properties: properties) }
    }

    @inline(never)
    static func measuredReloadRequest(_ channels: EngineChannels, iterations: Int) {
        for _ in 0..<iterations {
            channels.requestReload()
            blackHole(channels.takeReloadRequest())
        }
    }

    @inline(never)
    static func measuredPackedDiff(_ previous: PackedSegmentSet, _ next: PackedSegmentSet, iterations: Int) {
        var equal = 0
        for _ in 0..<iterations where previous == next { equal += 1 }
        blackHole(equal)
    }

    @inline(never)
    static func measuredDecodeAndDiff(
        _ body: [UInt8], customerIds: [String: String], previous: LastKnownState, iterations: Int
    ) throws {
        var comparer = SegmentSetComparer()
        for _ in 0..<iterations {
            let next = LastKnownState(customerIds: customerIds, response: try SegmentsResponseDecoder.decode(body))
            blackHole(LastKnownState.changedCategories(from: previous, to: next, using: &comparer).count)
        }
    }

    @inline(never)
    static func measuredDelivery(_ delivery: SynchronousDelivery, _ payload: [Segment], iterations: Int) {
        for _ in 0..<iterations { blackHole(delivery.deliver(payload, to: .discovery)) }
    }

    /// `iterations` checks, each with changed data for one callback, triggered by a tracked event.
    /// Waits for each check's callback and for the engine to settle before the next.
    private static func runChecks(iterations: Int) throws {
        let engine = try EngineUnderTest.make(transport: .memory, debounce: .zero, maxWait: .zero)
        defer { engine.shutdown() }
        let delivered = DispatchSemaphore(value: 0)
        engine.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in delivered.signal() })
        engine.client.start()
        _ = engine.client.waitUntilIdle(timeout: .seconds(60))
        let cookie = engine.cookie
        // Two warm-up checks, then the counted ones: the same work each time.
        for check in 0..<(iterations + 2) {
            engine.backend.setSegments(
                FanoutProbe.payload(variant: check), category: .discovery, forCookie: cookie,
                projectToken: EngineUnderTest.project.token)
            try engine.client.trackEvent(eventType: "check")
            guard delivered.wait(timeout: .now() + 60) == .success else { throw CostProbe.Failure.regionStalled("check") }
            _ = engine.client.waitUntilIdle(timeout: .seconds(60))
        }
    }
}
