import Foundation
@_spi(Benchmarks) import RealtimeSegments

/// `hot-path`: the engine's per-request and per-response pieces, timed in batches on one thread
/// with a floor measured in between, so their ratios hold on a noisy machine.
///
/// The micro benchmarks (`Benchmarks/Micro`) gate the same pieces' malloc counts; this scenario puts
/// their times next to the rest of a `segments-bench` run.
public struct HotPathScenario: Scenario {
    public init() {}
    public let name = "hot-path"
    public let honouredOptions: Set<BenchOptionName> = []
    public let needsMockIntrospection: String? = "the engine alone, in process (it drives no server)"
    public let needsSegmentsClient: String? = "internals (the hot path measured piece by piece)"
    public let simulates = "reload requests at any rate, a debounce window under a burst, segment-set diffs and response decoding, each in a tight loop"
    public let measures = "ns per reload request (setting the flag, and with it already set) and their ratios to a fetch-add, checks per burst window, in-order, packed and fallback diff ns per segment, decode + diff of a typical response, unchanged and changed (µs, allocations)"

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let trials = options.quick ? 9 : 31
        var figures: [Figure] = []
        var notes: [String] = []

        progress.say("reload requests against a fetch-add, interleaved")
        let reload = Self.reloadRequest(trials: trials)
        figures += [
            Figure(name: "hot-path.reload.requestNs", value: reload.request, unit: "ns",
                   summary: "one reload request that sets the flag (the first after the engine took it: the lock-free flag behind addCallback and tracked events), batch median (target < 20 ns)"),
            Figure(name: "hot-path.reload.repeatedRequestNs", value: reload.repeated, unit: "ns",
                   summary: "one reload request while the flag is already set (every request after the first until the engine takes it), batch median"),
            Figure(name: "hot-path.reload.requestToFetchAdd", value: reload.repeated / max(reload.fetchAdd, 0.1), unit: "ratio",
                   direction: .lowerIsBetter, summary: "a repeated reload request (flag already set) over a relaxed fetch-add, batches interleaved"),
            Figure(name: "hot-path.reload.settingRequestToFetchAdd", value: reload.request / max(reload.fetchAdd, 0.1), unit: "ratio",
                   direction: .lowerIsBetter, summary: "a reload request that sets the flag over a relaxed fetch-add, batches interleaved"),
        ]

        progress.say("a burst of reload requests inside one debounce window")
        let burst = Self.burstChecks(requests: 1_000_000)
        figures += [
            Figure(name: "hot-path.reload.checksPerBurstWindow", value: Double(burst.checks), unit: "count", gate: .mustEqual(1),
                   summary: "checks started for 1,000,000 requests 1 µs apart (all inside one 5 s debounce window)"),
            Figure(name: "hot-path.reload.checksAfterMaxWait", value: Double(burst.streamChecks), unit: "count", gate: .mustEqual(2),
                   summary: "checks started for requests every 1 ms for 60 s (debounce 5 s, max-wait 30 s): max-wait fires twice"),
        ]

        progress.say("segment-set diff: in order, packed ObjectIds and the string fallback")
        let inOrder = Self.inOrderNsPerSegment(count: 1_000, trials: trials)
        let pack = Self.packNsPerSegment(count: 1_000, trials: trials)
        let packed = Self.compareNsPerSegment(count: 1_000, hex: true, trials: trials)
        let fallback = Self.compareNsPerSegment(count: 100, hex: false, trials: trials)
        figures += [
            Figure(name: "hot-path.diff.inOrderNsPerSegment.n1000", value: inOrder, unit: "ns",
                   summary: "the engine's first test of an unchanged category: two equal lists of 1,000 24-hex segments in the same order, per segment"),
            Figure(name: "hot-path.diff.packNsPerSegment.n1000", value: pack, unit: "ns",
                   summary: "packing and sorting a list of 1,000 24-hex segments into a reused buffer, per segment: what a changed or reordered category costs before the compare"),
            Figure(name: "hot-path.diff.packedNsPerSegment.n1000", value: packed, unit: "ns",
                   summary: "equal-set compare of 1,000 24-hex segments (packed, sorted), per segment (target ≤ 1 ns)"),
            Figure(name: "hot-path.diff.fallbackNsPerSegment.n100", value: fallback, unit: "ns",
                   summary: "equal-set compare of 100 segments whose ids are not 24-hex (sorted strings), per segment"),
        ]

        progress.say("decode and diff a typical response (3 categories × 10 segments), unchanged and with one segment added")
        let decode = try Self.decodeAndDiff(trials: trials, addingASegment: false)
        let changedDecode = try Self.decodeAndDiff(trials: trials, addingASegment: true)
        figures += [
            Figure(name: "hot-path.decodeAndDiff.3x10Us", value: decode.microseconds, unit: "µs",
                   summary: "decode a 3 × 10 response body, keep it as the state, diff it with the previous, equal one (target < 5 µs)"),
            Figure(name: "hot-path.decodeAndDiff.3x10ChangedUs", value: changedDecode.microseconds, unit: "µs",
                   summary: "the same with one segment added to one category: that category is compared as sets"),
        ]
        if let allocations = decode.allocations, let changedAllocations = changedDecode.allocations {
            figures += [
                Figure(name: "hot-path.decodeAndDiff.3x10Allocs", value: allocations, unit: "allocs/op", gate: .allocations,
                       summary: "malloc calls per decode + diff of a 3 × 10 response"),
                Figure(name: "hot-path.decodeAndDiff.3x10ChangedAllocs", value: changedAllocations, unit: "allocs/op",
                       gate: .allocations, summary: "malloc calls per decode + diff of a 3 × 10 response with one segment added"),
            ]
        } else {
            notes.append(AllocationProbe.unavailableNote)
        }

        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["trials": "\(trials)"]) { $1 },
            figures: figures, allocationsMeasured: decode.allocations != nil, notes: notes)
    }

    // MARK: Pieces

    /// Median ns per `requestReload()` that sets the flag, per `requestReload()` that finds it set,
    /// and per fetch-add, over `trials` interleaved batches.
    ///
    /// A request that sets the flag is the first after the engine took it; on one flag only every
    /// other call could be that one. So the setting batch requests once on each of
    /// `settingChannels` separate channels whose flags were all taken beforehand (outside the
    /// timed span), and the repeated batch requests again and again on one channel.
    static func reloadRequest(trials: Int) -> (request: Double, repeated: Double, fetchAdd: Double) {
        let channels = EngineChannels(ringCapacity: 16)
        let settingChannels = (0..<1_024).map { _ in EngineChannels(ringCapacity: 16) }
        let iterations = 1_000_000
        let rounds = iterations / settingChannels.count
        var requests: [Double] = []
        var repeats: [Double] = []
        var adds: [Double] = []
        for _ in 0..<trials {
            adds.append(TrackingStormScenario.fetchAddBatch(iterations: iterations))
            var setting: UInt64 = 0
            for _ in 0..<rounds {
                for channel in settingChannels { blackHole(channel.takeReloadRequest()) }
                let start = monotonicNanoseconds()
                for channel in settingChannels { channel.requestReload() }
                setting += monotonicNanoseconds() - start
            }
            requests.append(Double(setting) / Double(rounds * settingChannels.count))
            blackHole(channels.takeReloadRequest())
            channels.requestReload()
            let start = monotonicNanoseconds()
            for _ in 0..<iterations { channels.requestReload() }
            repeats.append(Double(monotonicNanoseconds() - start) / Double(iterations))
            blackHole(channels.takeReloadRequest())
        }
        return (median(requests), median(repeats), median(adds))
    }

    /// Checks the coalescer starts for a burst inside one window, and for a long steady stream.
    static func burstChecks(requests: Int) -> (checks: Int, streamChecks: Int) {
        let timing = CoalescerStateMachine.Timing(debounce: .seconds(5), maxWait: .seconds(30))
        func run(count: Int, spacing: Duration, until end: Duration) -> Int {
            var machine = CoalescerStateMachine(timing: timing)
            let start = SegmentsInstant(nanoseconds: 1_000_000_000)
            var now = start
            var checks = 0
            func react(_ action: CoalescerStateMachine.Action) {
                guard action == .startCheck else { return }
                checks += 1
                // The check finishes at once; what follows is coalesced again.
                _ = machine.checkFinished(at: now)
            }
            for _ in 0..<count {
                react(machine.request(at: now))  // `request` also ticks
                now = now + spacing
            }
            // Let the last window close without new requests.
            while now < start + end {
                now = now + .milliseconds(100)
                react(machine.tick(at: now))
            }
            return checks
        }
        let burst = run(count: requests, spacing: .microseconds(1), until: .seconds(12))
        // 60 s of requests 1 ms apart: the debounce window never closes, so max-wait (30 s) starts
        // a check at 30 s and another 30 s after the next request; then nothing is pending.
        let stream = run(count: 60_000 - 1, spacing: .milliseconds(1), until: .seconds(75))
        return (burst, stream)
    }

    /// The `index`th segment of the diff measurements: two 24-hex ids, distinct for every index.
    static func hexSegment(_ index: Int) -> Segment {
        Segment(id: objectId(high: UInt64(index) &* 2_654_435_761, low: UInt32(index)), segmentationId: objectId(high: 0, low: UInt32(0xABC + index)))
    }

    /// Median ns per segment of comparing two equal sets of `count` segments (one built reversed).
    static func compareNsPerSegment(count: Int, hex: Bool, trials: Int) -> Double {
        let segments = (0..<count).map { index in
            hex ? hexSegment(index)
                : Segment(id: "campaign-segment-\(100_000 + index)", segmentationId: "segmentation-rule-\(200_000 + index)")
        }
        let previous = PackedSegmentSet(segments)
        let next = PackedSegmentSet(segments.reversed())
        precondition(previous.isPacked == hex && previous == next, "the sets must be equal and packed only for hex ids")
        let iterations = max(1, 2_000_000 / count)
        var times: [Double] = []
        for _ in 0..<trials {
            var equal = 0
            let start = monotonicNanoseconds()
            for _ in 0..<iterations where previous == next { equal += 1 }
            times.append(Double(monotonicNanoseconds() - start) / Double(iterations * count))
            precondition(equal == iterations)
        }
        return median(times)
    }

    /// Median ns per segment of the engine's in-order test of two equal lists of `count` segments
    /// (equal values in two buffers, as two fetches of an unchanged category are).
    static func inOrderNsPerSegment(count: Int, trials: Int) -> Double {
        let segments = (0..<count).map(hexSegment)
        let copy = segments.map { $0 }
        var comparer = SegmentSetComparer()
        let iterations = max(1, 2_000_000 / count)
        var times: [Double] = []
        for _ in 0..<trials {
            var equal = 0
            let start = monotonicNanoseconds()
            for _ in 0..<iterations where comparer.holdTheSameSet(segments, copy) { equal += 1 }
            times.append(Double(monotonicNanoseconds() - start) / Double(iterations * count))
            precondition(equal == iterations)
        }
        return median(times)
    }

    /// Median ns per segment of packing `count` segments (listed in reverse key order) into sorted
    /// keys, in a buffer reused as the engine's comparer reuses it.
    static func packNsPerSegment(count: Int, trials: Int) -> Double {
        let segments = (0..<count).reversed().map(hexSegment)
        var keys: [PackedSegmentSet.Key] = []
        let iterations = max(1, 200_000 / count)
        var times: [Double] = []
        for _ in 0..<trials {
            var packed = 0
            let start = monotonicNanoseconds()
            for _ in 0..<iterations where PackedSegmentSet.pack(segments, into: &keys) { packed += 1 }
            times.append(Double(monotonicNanoseconds() - start) / Double(iterations * count))
            precondition(packed == iterations && keys.count == count)
        }
        return median(times)
    }

    /// Median µs and mean malloc calls of decode + state + diff of a typical 3 × 10 body against the
    /// state of that body: unchanged, or with one segment added to one category.
    static func decodeAndDiff(trials: Int, addingASegment: Bool) throws -> (microseconds: Double, allocations: Double?) {
        let body = Array(Self.responseBody(addingASegment: addingASegment).utf8)
        let customerIds = ["cookie": "hot-path-cookie"]
        let previous = LastKnownState(customerIds: customerIds, response: try SegmentsResponseDecoder.decode(Array(Self.responseBody().utf8)))
        // Kept across calls, as the engine keeps it: its buffers are warm after the first.
        var comparer = SegmentSetComparer()
        func once() throws {
            let next = LastKnownState(customerIds: customerIds, response: try SegmentsResponseDecoder.decode(body))
            let changed = LastKnownState.changedCategories(from: previous, to: next, using: &comparer)
            precondition(changed.count == (addingASegment ? 1 : 0), "exactly the category with the added segment changes")
        }
        let iterations = 2_000
        var times: [Double] = []
        for _ in 0..<trials {
            let start = monotonicNanoseconds()
            for _ in 0..<iterations { try once() }
            times.append(Double(monotonicNanoseconds() - start) / Double(iterations) / 1_000)
        }
        let before = AllocationProbe.snapshot()
        for _ in 0..<iterations { try once() }
        let after = AllocationProbe.snapshot()
        let allocations = before.flatMap { before in
            after.map { Double($0.mallocCalls - before.mallocCalls) / Double(iterations) }
        }
        return (median(times), allocations)
    }

    /// 3 categories × 10 segments with 24-hex ids, as the server sends it; with `addingASegment`, an
    /// eleventh segment at the end of the second category.
    static func responseBody(addingASegment: Bool = false) -> String {
        let categories = ["discovery", "merchandising", "content"].enumerated().map { category, name in
            let count = addingASegment && category == 1 ? 11 : 10
            let segments = (0..<count).map { index in
                "{\"id\":\"\(objectId(high: UInt64(index &* 40_503 &+ category), low: UInt32(index)))\","
                    + "\"segmentation_id\":\"\(objectId(high: 0, low: UInt32(0xABC + category * 100 + index)))\"}"
            }
            return "\"\(name)\":[\(segments.joined(separator: ","))]"
        }
        return "{\(categories.joined(separator: ","))}"
    }
}
