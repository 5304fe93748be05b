import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting

/// How long after the call the engine stamps an event tracked without a timestamp (it stamps
/// events in batches as it takes them from the ring; see `SegmentsClient.trackEvent`).
///
/// Each event carries the wall-clock time read just before its call, in a property; the sink
/// subtracts it from the event's stamp. Both come from the same precise clock
/// (`SystemClock.wallClockSeconds()`), so the lag is measured, not bounded by a tick.
enum StampLagProbe {
    /// The lag distribution and how many stamps came before their call (0 unless the wall clock
    /// was set back meanwhile).
    struct Measurement {
        var lag: LatencyRecorder
        var stampsBeforeCall: Int
        var events: Int
    }

    static let calledAtProperty = "calledAt"

    /// One producer tracking `rate` events a second for `seconds`.
    static func measure(rate: Double, seconds: Double) throws -> Measurement {
        let sink = LagSink()
        var configuration = SegmentsConfiguration(projectToken: "stamp-lag", transport: sink)
        configuration.debounce = .seconds(3600)
        configuration.logger.logLevel = .critical
        let client = SegmentsClient(configuration: configuration)
        client.start()
        let clock = SystemClock()
        let outcome = LoadGenerator.run(producers: 1, seconds: seconds, ratePerProducer: rate, fromScheduledStart: false) { _, _ in
            let calledAt = clock.wallClockSeconds()
            try? client.trackEvent(eventType: "stamp_lag", properties: [calledAtProperty: .number(calledAt)])
        }
        _ = client.waitUntilIdle(timeout: .seconds(60))
        client.stop()
        return sink.state.withLock { state in
            Measurement(lag: state.lag, stampsBeforeCall: state.stampsBeforeCall, events: outcome.operations)
        }
    }

    /// Accepts everything; records each event's stamp minus its call time.
    final class LagSink: SegmentsTransport {
        struct State {
            var lag = LatencyRecorder()
            var stampsBeforeCall = 0
        }

        let state = LockedBox(State())

        func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
            state.withLock { state in
                for event in events {
                    guard case .number(let calledAt)? = event.properties[StampLagProbe.calledAtProperty] else { continue }
                    let lag = event.timestamp - calledAt
                    if lag < 0 { state.stampsBeforeCall += 1 }
                    state.lag.record(UInt64(max(lag, 0) * 1e9))
                }
            }
        }

        func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}

        func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
            async throws(SegmentsError) {}

        /// `true`: it records under a short lock.
        var neverBlocks: Bool { true }

        func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
            SegmentsResponse(categories: [:])
        }
    }
}
