import RealtimeSegments

/// One device's view of the shared transport: forwards every call to `inner`, times it into the
/// fleet's ``FleetMeasurements``, marks each fetched category with the cookie it was fetched for
/// (a segment `{id: cookie, segmentation_id: "customer"}`, as ``MeasuringTransport`` does), counts
/// the events of every upload the server acknowledged, and counts a fetch that follows the
/// device's previous one too closely.
final class FleetDeviceTransport: SegmentsTransport {
    /// The event property carrying the event's intended start (monotonic ns).
    static let intendedAtProperty = "intendedAt"

    private let inner: any SegmentsTransport
    private let state: LockedBox<FleetDeviceState>
    private let measurements: FleetMeasurements
    private let debounceNanoseconds: UInt64

    init(_ inner: any SegmentsTransport, state: LockedBox<FleetDeviceState>, measurements: FleetMeasurements, debounce: Duration) {
        self.inner = inner
        self.state = state
        self.measurements = measurements
        self.debounceNanoseconds = debounce.wholeNanoseconds
    }

    /// The wrapped transport's promise: the timing adds only short locks.
    var neverBlocks: Bool { inner.neverBlocks }

    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        do throws(SegmentsError) {
            try await inner.trackEvents(events, context: context)
        } catch {
            measurements.transportFailures.wrappingIncrement(ordering: .relaxed)
            throw error
        }
        measurements.eventsAcknowledged.wrappingIncrement(by: events.count, ordering: .relaxed)
        let now = monotonicNanoseconds()
        measurements.upload.withLock { recorder in
            for event in events {
                if case .number(let intended)? = event.properties[Self.intendedAtProperty] {
                    recorder.record(now &- UInt64(intended))
                }
            }
        }
    }

    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        do throws(SegmentsError) {
            try await inner.identifyCustomer(update, context: context)
        } catch {
            measurements.transportFailures.wrappingIncrement(ordering: .relaxed)
            throw error
        }
    }

    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        let start = monotonicNanoseconds()
        do throws(SegmentsError) {
            try await inner.linkCustomerIds(cookie: cookie, externalIds: externalIds, context: context)
        } catch {
            measurements.transportFailures.wrappingIncrement(ordering: .relaxed)
            throw error
        }
        let now = monotonicNanoseconds()
        let intended = state.withLock { state in
            defer { state.pendingLinkIntended = nil }
            return state.pendingLinkIntended
        }
        FleetMeasurements.record(now &- (intended ?? start), into: measurements.link)
    }

    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        let start = monotonicNanoseconds()
        measurements.fetches.wrappingIncrement(ordering: .relaxed)
        let debounce = debounceNanoseconds
        let excess = state.withLock { state in
            defer { state.lastFetchStart = start }
            // Too close: under half a debounce after the previous fetch, with no switch since
            // a debounce before that one (a switch legitimately starts a fetch for the new
            // customer, and the old customer's may have started just after the switch call).
            guard let previous = state.lastFetchStart, start &- previous < debounce / 2 else { return false }
            if let switched = state.lastSwitchAt, switched + debounce >= previous { return false }
            return true
        }
        if excess { measurements.excessFetches.wrappingIncrement(ordering: .relaxed) }
        var response: SegmentsResponse
        do throws(SegmentsError) {
            response = try await inner.fetchSegments(cookie: cookie, context: context)
        } catch {
            measurements.transportFailures.wrappingIncrement(ordering: .relaxed)
            throw error
        }
        FleetMeasurements.record(monotonicNanoseconds() &- start, into: measurements.fetch)
        let marker = Segment(id: cookie, segmentationId: MeasuringTransport.markerSegmentationId)
        for category in FleetScenario.categories {
            response.categories[category, default: []].insert(marker, at: 0)
        }
        return response
    }
}
