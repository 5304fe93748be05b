import Atomics
import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting

/// `reporting`: Convert-style reporting segments (SPEC §10) under concurrent setters, with
/// write-behind persistence and restore.
public struct ReportingScenario: Scenario {
    public let name = "reporting"
    public let honouredOptions: Set<BenchOptionName> = [.producers, .duration]
    public let needsMockIntrospection: String? = "the engine alone, in process, with a sink transport (it drives no server)"
    public let needsSegmentsClient: String? = "reporting API (visitors, persistence)"
    public let simulates =
        "P threads alternating setCustomSegments and setDefaultSegments on a shared set of visitors, with one subscriber and write-behind persistence, then N visitors persisted and restored by a new client"
    public let measures =
        "setter latency and throughput, lost updates and events vs setter calls (both must be 0), persistence cost (flush time, files, bytes, ms per visitor, coalescing), restore time, allocations per setter"

    /// Visitors persisted and restored in the persistence phase; `nil` for the default.
    let persistedVisitors: Int?

    public init() { persistedVisitors = nil }

    init(persistedVisitors: Int?) { self.persistedVisitors = persistedVisitors }

    public func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let threads = options.producers ?? 4
        let seconds = options.duration(default: 3)
        let visitorCount = 64
        let persisted = persistedVisitors ?? (options.quick ? 100 : 500)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("segments-bench-reporting-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }

        var figures: [Figure] = []
        var notes: [String] = []

        // Phase 1: concurrent setters, one subscriber, write-behind persistence.
        progress.say("\(threads) threads × setters on \(visitorCount) shared visitors for \(String(format: "%.1f", seconds)) s")
        let client = Self.makeClient(stateDirectory: root.appendingPathComponent("load"))
        let events = ManagedAtomic<Int>(0)
        client.reporting.subscribe { _ in events.wrappingIncrement(ordering: .relaxed) }
        let load = ReportingLoad(visitorIds: (0..<visitorCount).map { "visitor-\($0)" }, threads: threads)
        let started = monotonicNanoseconds()
        let outcomes = try load.run(client, seconds: seconds, maxCallsPerThread: options.quick ? 50_000 : 200_000)
        let loadSeconds = Double(monotonicNanoseconds() - started) / 1e9
        let flushStart = monotonicNanoseconds()
        client.reporting.flush()
        let flushMs = Double(monotonicNanoseconds() - flushStart) / 1e6
        client.reporting.waitForDeliveries()
        let setters = outcomes.reduce(0) { $0 + $1.calls }
        let lost = try load.lostUpdates(outcomes, client: client)
        let written = client.reporting.persistedWrites
        client.stop()
        var recorder = LatencyRecorder()
        for outcome in outcomes { recorder.merge(outcome.latency) }
        let latency = recorder.summary("setter", definition: "setDefaultSegments or setCustomSegments call, \(threads) threads")

        figures += [
            Figure(name: "reporting.setterP50", value: Double(latency.p50), unit: "ns", restates: latency.comparedName("p50", in: name),
                   summary: "setter call latency p50 (\(threads) threads, shared visitors, one subscriber, persistence on)"),
            Figure(name: "reporting.settersPerSecond", value: Double(setters) / max(loadSeconds, 1e-9), unit: "ops/s",
                   summary: "setter calls per second, all threads"),
            Figure(name: "reporting.lostUpdates", value: Double(lost), unit: "count", gate: .zero,
                   summary: "updates missing from the final segments (custom appends lost or reordered, default keys reverted)"),
            Figure(name: "reporting.eventsMinusSetters", value: Double(events.load(ordering: .relaxed) - setters), unit: "count",
                   gate: .zero, summary: "events delivered minus setter calls (one event per call)"),
            Figure(name: "reporting.setterCalls", value: Double(setters), unit: "count", summary: "setter calls in the load phase"),
            Figure(name: "reporting.flushAfterLoadMs", value: flushMs, unit: "ms",
                   summary: "write-behind flush after the load (what was still unwritten)"),
            Figure(name: "reporting.settersPerFileWrite", value: Double(setters) / Double(max(written.files, 1)), unit: "ratio",
                   summary: "setter calls per visitor file written (> 1: updates coalesced)"),
        ]
        if let p99 = latency.p99 {
            figures.append(Figure(name: "reporting.setterP99", value: Double(p99), unit: "ns", restates: latency.comparedName("p99", in: name), summary: "setter call latency p99"))
        }

        // Phase 2: N visitors persisted, then restored by a new client.
        progress.say("persisting and restoring \(persisted) visitors")
        let persistence = try Self.persistAndRestore(visitors: persisted, directory: root.appendingPathComponent("restore"))
        figures += [
            Figure(name: "reporting.persistMsPerVisitor", value: persistence.persistMs / Double(max(persisted, 1)), unit: "ms",
                   summary: "set \(persisted) visitors then flush, per visitor (one durable file replace each)"),
            Figure(name: "reporting.persistFlushMs", value: persistence.flushMs, unit: "ms",
                   summary: "flush after setting \(persisted) visitors"),
            Figure(name: "reporting.persistedFiles", value: Double(persistence.files), unit: "count", summary: "visitor files on disk"),
            Figure(name: "reporting.persistedBytes", value: Double(persistence.bytes), unit: "bytes", summary: "bytes of visitor files on disk"),
            Figure(name: "reporting.restoreMs", value: persistence.restoreMs, unit: "ms",
                   summary: "restore of \(persisted) visitors by a new client"),
            Figure(name: "reporting.restoreMismatches", value: Double(persistence.mismatches), unit: "count", gate: .zero,
                   summary: "visitors missing or different after restore"),
        ]

        // Phase 3: allocations per setter (one thread, one subscriber, in memory).
        let allocations = try Self.allocationsPerSetter(calls: options.quick ? 5_000 : 20_000)
        if let perDefault = allocations.defaultSetter, let perCustom = allocations.customSetter {
            figures.append(Figure(name: "reporting.allocsPerDefaultSetter", value: perDefault, unit: "allocs/op",
                                  summary: "malloc calls per setDefaultSegments (one subscriber, in memory)"))
            figures.append(Figure(name: "reporting.allocsPerCustomSetter", value: perCustom, unit: "allocs/op",
                                  summary: "malloc calls per setCustomSegments (one subscriber, in memory)"))
        } else {
            notes.append(AllocationProbe.unavailableNote)
        }

        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(
                ["threads": "\(threads)", "visitors": "\(visitorCount)", "duration": "\(seconds)", "persistedVisitors": "\(persisted)"]
            ) { $1 },
            figures: figures,
            latencies: [latency],
            allocationsMeasured: allocations.defaultSetter != nil, notes: notes)
    }

    /// A client (not started) with a sink transport and `stateDirectory`.
    static func makeClient(stateDirectory: URL?) -> SegmentsClient {
        CountingSinkTransport.makeClient(projectToken: "reporting", stateDirectory: stateDirectory, start: false).client
    }

    static func persistAndRestore(visitors: Int, directory: URL) throws
        -> (persistMs: Double, flushMs: Double, files: Int, bytes: Int, restoreMs: Double, mismatches: Int)
    {
        func expected(_ index: Int) -> ReportingSegments {
            ReportingSegments(country: "C\(index % 50)", browser: "B\(index % 5)", devices: "desktop", source: "S\(index % 7)",
                              campaign: "campaign-\(index)", visitorType: index % 2 == 0 ? "new" : "returning",
                              customSegments: ["c-\(index)", "shared"])
        }
        let writer = makeClient(stateDirectory: directory)
        let start = monotonicNanoseconds()
        for index in 0..<visitors {
            let segments = expected(index)
            let visitor = try writer.reportingVisitor(visitorId: "visitor-\(index)")
            visitor.setDefaultSegments(ReportingSegmentKey.allCases.reduce(into: [:]) { $0[$1.rawValue] = segments[$1] })
            visitor.setCustomSegments(segments.customSegments)
        }
        let flushStart = monotonicNanoseconds()
        writer.reporting.flush()
        let end = monotonicNanoseconds()
        writer.stop()

        let files = (try? FileManager.default.contentsOfDirectory(
            at: directory.appendingPathComponent("reporting-segments"), includingPropertiesForKeys: [.fileSizeKey])) ?? []
        let bytes = files.reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }

        let reader = makeClient(stateDirectory: directory)
        let restoreStart = monotonicNanoseconds()
        let restoredCount = reader.reporting.visitorCount
        let restoreMs = Double(monotonicNanoseconds() - restoreStart) / 1e6
        var mismatches = abs(restoredCount - visitors)
        for index in 0..<visitors where try reader.reportingVisitor(visitorId: "visitor-\(index)").segments != expected(index) {
            mismatches += 1
        }
        reader.stop()
        return (Double(end - start) / 1e6, Double(end - flushStart) / 1e6, files.count, bytes, restoreMs, mismatches)
    }

    /// Malloc calls per setter call with one subscriber and no persistence, or `nil` without jemalloc.
    static func allocationsPerSetter(calls: Int) throws -> (defaultSetter: Double?, customSetter: Double?) {
        guard AllocationProbe.isAvailable else { return (nil, nil) }
        let client = makeClient(stateDirectory: nil)
        defer { client.stop() }
        client.reporting.subscribe { blackHole($0) }
        let visitors = try (0..<64).map { try client.reportingVisitor(visitorId: "visitor-\($0)") }
        let defaults = ["country": "DE", "campaign": "spring"]
        let custom = ["segment"]
        // Warm up: grow the store and the delivery queue to their working size first.
        for call in 0..<2_000 { visitors[call % visitors.count].setDefaultSegments(defaults) }
        client.reporting.waitForDeliveries()
        func measure(_ body: (Int) -> Void) -> Double? {
            guard let before = AllocationProbe.snapshot() else { return nil }
            for call in 0..<calls { body(call) }
            client.reporting.waitForDeliveries()
            guard let after = AllocationProbe.snapshot() else { return nil }
            return Double(after.mallocCalls - before.mallocCalls) / Double(calls)
        }
        let perDefault = measure { visitors[$0 % visitors.count].setDefaultSegments(defaults) }
        let perCustom = measure { visitors[$0 % visitors.count].setCustomSegments(custom) }
        return (perDefault, perCustom)
    }
}
