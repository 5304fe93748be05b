import Benchmark
import Foundation
@_spi(Benchmarks) import RealtimeSegments
import RealtimeSegmentsTesting
import Synchronization

// Micro benchmarks of the engine's four hot paths: ingestion, coalescing, diff, fan-out.
//
// Gate: malloc counts only (checked against `Thresholds/`, p90; no tolerance, except that
// `Ingest.trackEvent` allows 5 per 1,000 events, see there); wall clock is reported but never
// checked, because it moves 30–40 % run to run on the shared 2-core machine.
// Benchmarks marked `perOperation` run 1,000 operations per measurement (`scalingFactor: .kilo`);
// `swift package benchmark --scale` divides their `*` columns by 1,000.

/// The default gate: wall clock is informational; malloc counts must match the checked-in p90 exactly.
private var gated: [BenchmarkMetric: BenchmarkThresholds] {
    [.mallocCountTotal: .init(absolute: [.p90: 0]), .wallClock: .none, .throughput: .none]
}

private func configuration(
    perOperation: Bool, maxIterations: Int = 10_000,
    thresholds: [BenchmarkMetric: BenchmarkThresholds] = gated
) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: perOperation ? .kilo : .one,
        maxDuration: .seconds(2),
        maxIterations: maxIterations,
        thresholds: thresholds)
}

// MARK: Fixtures

/// A 24-character lower-case hex ObjectId, distinct for every (`value`, `salt`).
private func objectId(_ value: Int, salt: Int) -> String {
    func padded(_ hex: String, to width: Int) -> String { String(repeating: "0", count: width - hex.count) + hex }
    let high = UInt64(truncatingIfNeeded: value) &* 0x9E37_79B9_7F4A_7C15  // a bijection of value
    return padded(String(high, radix: 16), to: 16) + padded(String(UInt32(truncatingIfNeeded: salt), radix: 16), to: 8)
}

/// `n` segments with ObjectId ids (each string built afresh, so two calls share no storage).
private func hexSegments(_ n: Int, category: Int = 0) -> [Segment] {
    (0..<n).map { Segment(id: objectId($0, salt: category), segmentationId: objectId($0 &+ 7_919, salt: category)) }
}

/// `n` segments whose ids are not 24-hex (the string fallback); long enough to be heap strings.
private func textSegments(_ n: Int) -> [Segment] {
    (0..<n).map { Segment(id: "campaign-segment-\(100_000 + $0)", segmentationId: "segmentation-rule-\(200_000 + $0)") }
}

/// A typical segments response body: 3 categories × 10 segments, as the server sends it.
private func responseBody() -> Data {
    let categories = ["discovery", "merchandising", "content"].enumerated().map { index, name in
        let segments = hexSegments(10, category: index)
            .map { "{\"id\":\"\($0.id)\",\"segmentation_id\":\"\($0.segmentationId)\"}" }
        return "\"\(name)\":[\(segments.joined(separator: ","))]"
    }
    return Data("{\(categories.joined(separator: ","))}".utf8)
}

/// One counter per callback, 64 bytes apart so that no two callbacks share a cache line.
private final class CounterSlab: @unchecked Sendable {
    // @unchecked Sendable: slot `i` is written only by callback `i`, and a benchmark's delivery
    // loop runs its callbacks one after another on one thread; the memory lives as long as the slab.
    private static let stride = 8
    private let counters: UnsafeMutablePointer<Int>
    let count: Int

    init(count: Int) {
        self.count = count
        counters = .allocate(capacity: count * Self.stride)
        counters.initialize(repeating: 0, count: count * Self.stride)
    }

    deinit { counters.deallocate() }

    @inline(__always)
    func bump(_ index: Int) { counters[index * Self.stride] &+= 1 }
}

/// `n` ordered callbacks on `category`, each bumping its own counter (no first load).
private func delivery(callbacks n: Int, category: SegmentCategory) -> SynchronousDelivery {
    let slab = CounterSlab(count: n)
    let callbacks = (0..<n).map { index in
        SegmentCallbackData(category: category, isIncludeFirstLoad: false) { _ in slab.bump(index) }
    }
    return SynchronousDelivery(callbacks: callbacks)
}

/// The baseline for ingestion: one shared atomic counter.
private let fetchAddCounter = Atomic<Int>(0)

/// A started client and nothing else, replaced for every run of `Ingest.trackEvent`.
private final class ClientBox: @unchecked Sendable {
    // @unchecked Sendable: written by the benchmark's setup and teardown, read by its body; the
    // benchmark runner calls those one after another.
    var client: SegmentsClient?
}

// MARK: Benchmarks

let benchmarks: @Sendable () -> Void = {
    // 1. Ingestion

    Benchmark("Ingest.fetchAddBaseline", configuration: configuration(perOperation: true)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(fetchAddCounter.wrappingAdd(1, ordering: .relaxed))
        }
    }

    let ring = EventRing<IngestItem>(minimumCapacity: 16_384)
    let properties: [String: JSONValue] = ["item": .string("sku-42"), "price": .number(9.99)]
    let item = IngestItem.event(eventType: "view_item", properties: properties, timestamp: 1_763_700_000)
    Benchmark("Ingest.ringEnqueueDequeue", configuration: configuration(perOperation: true)) { benchmark in
        for _ in benchmark.scaledIterations {
            precondition(ring.tryEnqueue(item))
            blackHole(ring.dequeue())
        }
    }

    // `trackEvent` on a started client; manual flushing, so the engine thread only drains the ring
    // into its upload buffer meanwhile (process-wide malloc counts include that thread).
    let box = ClientBox()
    Benchmark(
        "Ingest.trackEvent",
        // The engine thread's upload buffer grows now and then inside a measurement (p99: 1
        // malloc per 1,000 events); a per-event allocation would add 1,000, so allow a few.
        configuration: configuration(
            perOperation: true, maxIterations: 200,
            thresholds: [.mallocCountTotal: .init(absolute: [.p90: 5]), .wallClock: .none, .throughput: .none]),
        closure: { benchmark in
            guard let client = box.client else { return benchmark.error("no client") }
            for _ in benchmark.scaledIterations {
                try client.trackEvent(eventType: "view_item", properties: properties, timestamp: 1_763_700_000)
            }
        },
        setup: {
            var settings = SegmentsConfiguration(projectToken: "micro", transport: InMemorySegmentsTransport())
            settings.flushingMode = .manual
            let client = SegmentsClient(configuration: settings)
            client.start()
            box.client = client
        },
        teardown: {
            box.client?.stop(timeout: .seconds(30))
            box.client = nil
        })

    // 2. Coalescing

    let channels = EngineChannels(ringCapacity: 16)
    Benchmark("Coalesce.requestReload", configuration: configuration(perOperation: true)) { benchmark in
        for _ in benchmark.scaledIterations { channels.requestReload() }
        blackHole(channels.takeReloadRequest())
    }

    let timing = CoalescerStateMachine.Timing(debounce: .seconds(5), maxWait: .seconds(30))
    Benchmark("Coalesce.stateMachineRequest", configuration: configuration(perOperation: true)) { benchmark in
        // One burst: 1,000 requests 1 µs apart (all inside one debounce window), then the window
        // closes and the check runs and finishes.
        var machine = CoalescerStateMachine(timing: timing)
        var now = SegmentsInstant(nanoseconds: 1_000_000_000)
        for _ in benchmark.scaledIterations {
            blackHole(machine.request(at: now))
            now = now + .microseconds(1)
        }
        precondition(machine.tick(at: now + .seconds(5)) == .startCheck)
        blackHole(machine.checkFinished(at: now + .seconds(6)))
    }

    // 3. Diff

    for n in [10, 100, 1_000] {
        let previous = PackedSegmentSet(hexSegments(n))
        let next = PackedSegmentSet(hexSegments(n).reversed())
        precondition(previous.isPacked && previous == next)
        Benchmark("Diff.packedCompare.n\(n)", configuration: configuration(perOperation: true)) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(previous == next) }
        }
    }

    let previousText = PackedSegmentSet(textSegments(100))
    let nextText = PackedSegmentSet(textSegments(100).reversed())
    precondition(!previousText.isPacked && previousText == nextText)
    Benchmark("Diff.stringFallbackCompare.n100", configuration: configuration(perOperation: true)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(previousText == nextText) }
    }

    // The engine's path for a fetched body: decode, keep it as the state, diff it against the
    // previous state of the same customer (unchanged, the common case: compared in order).
    let body = responseBody()
    let customerIds = ["cookie": "micro-benchmark-cookie"]
    let previousState = try? LastKnownState(customerIds: customerIds, response: SegmentsResponseDecoder.decode(body))
    precondition(previousState != nil)
    Benchmark("Diff.decodeAndDiff.3x10", configuration: configuration(perOperation: false)) { benchmark in
        var comparer = SegmentSetComparer()
        for _ in benchmark.scaledIterations {
            let next = LastKnownState(customerIds: customerIds, response: try SegmentsResponseDecoder.decode(body))
            let changed = LastKnownState.changedCategories(from: previousState, to: next, using: &comparer)
            precondition(changed.isEmpty)
            blackHole(changed)
        }
    }

    // 4. Fan-out

    let payload = hexSegments(10)
    for n in [1_000, 10_000] {
        let fanout = delivery(callbacks: n, category: .discovery)
        Benchmark("Fanout.ordered.n\(n)", configuration: configuration(perOperation: false)) { benchmark in
            for _ in benchmark.scaledIterations {
                let notified = fanout.deliver(payload, to: .discovery)
                precondition(notified == n)
            }
        }
    }
}
