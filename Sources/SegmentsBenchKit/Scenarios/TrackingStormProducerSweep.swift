import Atomics
import Foundation
import RealtimeSegments
#if canImport(Glibc)
import Glibc
#endif

/// tracking-storm's producer sweep: flat-out `trackEvent` from 1, 2, 4, … producers up to the
/// machine's core count (always including it), each run reporting events per second and the
/// engine thread's CPU time per event, and how the worst throughput compares with one producer's.
///
/// Ingestion should scale with cores, or at least not fall as producers are added: producers that
/// find the ring full park rather than spin on lines the engine needs. Each producer tracks with a
/// properties dictionary of its own (one shared by every thread would measure the contention on
/// its reference count, which is the app's choice, not the ring's), into an engine whose transport
/// keeps nothing.
enum TrackingStormProducerSweep {
    /// One flat-out run.
    struct Point {
        var producers: Int
        var events: Int
        var seconds: Double
        /// From the first call until the transport had every event (the engine's backlog drained).
        var secondsUntilUploaded: Double
        /// The engine thread's CPU time over the run, draining included, per event (`nil` where unknown).
        var engineCPUNsPerEvent: Double?
        var stalls: Int
        var parks: Int
        var lost: Int

        var eventsPerSecond: Double { Double(events) / max(seconds, 1e-9) }
        var uploadedEventsPerSecond: Double { Double(events) / max(secondsUntilUploaded, 1e-9) }
    }

    /// 1, 2, 4, … below `cores`, then `cores`.
    static func producerCounts(cores: Int) -> [Int] {
        var counts = [1]
        var count = 2
        while count < cores {
            counts.append(count)
            count *= 2
        }
        if cores > 1 { counts.append(cores) }
        return counts
    }

    /// Runs the sweep (each producer count for `seconds`) and returns its figures, named
    /// `tracking-storm.producerSweep.*`, and notes.
    static func run(seconds: Double, progress: Progress) throws -> (figures: [Figure], notes: [String]) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var points: [Point] = []
        for producers in producerCounts(cores: cores) {
            progress.say("producer sweep: \(producers) producer\(producers == 1 ? "" : "s") flat out for \(seconds) s")
            points.append(try measure(producers: producers, seconds: seconds))
        }
        var figures: [Figure] = []
        var notes: [String] = []
        for point in points {
            let name = "tracking-storm.producerSweep.producers\(point.producers)"
            figures.append(Figure(name: "\(name).eventsPerSecond", value: point.eventsPerSecond, unit: "ops/s",
                                  summary: "events tracked per second, \(point.producers) producer\(point.producers == 1 ? "" : "s") flat out, engine with a sink transport"))
            figures.append(Figure(name: "\(name).uploadedEventsPerSecond", value: point.uploadedEventsPerSecond, unit: "ops/s",
                                  summary: "events per second through to the transport: from the first call until the sink had every event, the engine's backlog drained, \(point.producers) producer\(point.producers == 1 ? "" : "s")"))
            if let perEvent = point.engineCPUNsPerEvent {
                figures.append(Figure(name: "\(name).engineCPUNsPerEvent", value: perEvent, unit: "ns",
                                      summary: "engine thread CPU time per event (drain, stamping, batching, upload to the sink), \(point.producers) producer\(point.producers == 1 ? "" : "s")"))
            }
            figures += [
                Figure(name: "\(name).producerStalls", value: Double(point.stalls), unit: "count",
                       summary: "times a producer found the ring full, \(point.producers) producer\(point.producers == 1 ? "" : "s")"),
                Figure(name: "\(name).producerParks", value: Double(point.parks), unit: "count",
                       summary: "times a producer parked until the engine freed its slot, \(point.producers) producer\(point.producers == 1 ? "" : "s")"),
            ]
        }
        if points.contains(where: { $0.engineCPUNsPerEvent == nil }) {
            notes.append("The engine thread's CPU time is not readable here (Linux only): the sweep reports no engineCPUNsPerEvent.")
        }
        if let one = points.first {
            let worst = points.map { $0.eventsPerSecond / max(one.eventsPerSecond, 1e-9) }.min() ?? 1
            figures.append(Figure(name: "tracking-storm.producerSweep.eventsPerSecondRatioWorstToOne", value: worst, unit: "ratio",
                                  direction: .higherIsBetter, summary: "the lowest events/s of the sweep (1 to \(cores) producers) over one producer's, same run (reported: follows the host's cores)"))
        }
        figures.append(Figure(name: "tracking-storm.producerSweep.lostEvents", value: Double(points.map(\.lost).reduce(0, +)), unit: "count",
                              gate: .zero, summary: "events tracked minus events the sink received, whole sweep"))
        return (figures, notes)
    }

    /// Events each producer tracks between looks at the stop flag.
    private static let producerBatch = 64

    /// `producers` threads tracking flat out for `seconds` into a fresh sink client, started
    /// together; the engine's CPU time is read before they start and after it has taken every event.
    static func measure(producers: Int, seconds: Double) throws -> Point {
        let (client, sink) = TrackingStormScenario.sinkClient()
        defer { client.stop() }
        let warmUp = 20_000
        let warmUpProperties: [String: JSONValue] = ["sku": "A-1", "price": 9.99]
        for _ in 0..<warmUp { try client.trackEvent(eventType: "warmup", properties: warmUpProperties) }
        _ = client.waitUntilIdle(timeout: .seconds(60))
        let stallsBefore = client.statistics.producerStalls
        let parksBefore = client.producerParks
        let engineCPU = EngineCPUMeter(client)

        let ready = ManagedAtomic<Int>(0)
        let go = ManagedAtomic<Bool>(false)
        let stop = ManagedAtomic<Bool>(false)
        let tracked = ManagedAtomic<Int>(0)
        let failed = ManagedAtomic<Int>(0)
        let finished = DispatchGroup()
        for producer in 0..<producers {
            finished.enter()
            let thread = Thread {
                // A dictionary of this producer's own (see the type's comment).
                let properties: [String: JSONValue] = ["sku": "A-1", "price": 9.99, "producer": .number(Double(producer))]
                ready.wrappingIncrement(ordering: .releasing)
                while !go.load(ordering: .acquiring) { sched_yield() }
                var count = 0
                var failures = 0
                while !stop.load(ordering: .relaxed) {
                    for _ in 0..<producerBatch {
                        do { try client.trackEvent(eventType: "view_item", properties: properties) } catch { failures += 1 }
                    }
                    count += producerBatch
                }
                tracked.wrappingIncrement(by: count, ordering: .relaxed)
                failed.wrappingIncrement(by: failures, ordering: .relaxed)
                finished.leave()
            }
            thread.start()
        }
        while ready.load(ordering: .acquiring) < producers { sched_yield() }
        let start = monotonicNanoseconds()
        go.store(true, ordering: .releasing)
        usleep(UInt32(seconds * 1e6))
        stop.store(true, ordering: .relaxed)
        finished.wait()
        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
        _ = client.waitUntilIdle(timeout: .seconds(120))
        let untilUploaded = Double(monotonicNanoseconds() - start) / 1e9
        let events = tracked.load(ordering: .relaxed) - failed.load(ordering: .relaxed)
        return Point(
            producers: producers, events: events, seconds: elapsed, secondsUntilUploaded: untilUploaded, engineCPUNsPerEvent: engineCPU.nanosecondsPerEvent(events),
            stalls: client.statistics.producerStalls - stallsBefore, parks: client.producerParks - parksBefore,
            lost: events + warmUp - sink.eventCount)
    }
}

/// The engine thread's CPU time across a stretch of a run, per event (the consumer's cost).
struct EngineCPUMeter {
    private let client: SegmentsClient
    /// `nil` when the engine thread had not recorded itself yet (just after `start()`), having
    /// used no time that counts.
    private let before: Int?

    /// Starts measuring `client`'s engine thread now.
    init(_ client: SegmentsClient) {
        self.client = client
        before = client.engineThreadCPUNanoseconds
    }

    /// The engine thread's CPU nanoseconds since ``init(_:)`` over `events` (call once the engine
    /// has taken them all); `nil` where the engine thread's CPU time is not readable.
    func nanosecondsPerEvent(_ events: Int) -> Double? {
        guard let after = client.engineThreadCPUNanoseconds, events > 0 else { return nil }
        return Double(after - (before ?? 0)) / Double(events)
    }
}
