import Atomics
import Foundation
import RealtimeSegments

/// A transport that accepts everything and keeps nothing but counts, so that allocation figures
/// measure the engine rather than a backend storing events. Fetches return a fixed response.
public final class CountingSinkTransport: SegmentsTransport {
    private let events = ManagedAtomic<Int>(0)
    private let fetches = ManagedAtomic<Int>(0)
    private let response: SegmentsResponse

    /// Creates a sink answering every fetch with `response`.
    public init(response: SegmentsResponse = SegmentsResponse(categories: [.discovery: FanoutProbe.payload(variant: 0)])) {
        self.response = response
    }

    public func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        self.events.wrappingIncrement(by: events.count, ordering: .relaxed)
    }

    public func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}

    public func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError) {}

    /// `true`: it only counts.
    public var neverBlocks: Bool { true }

    public func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        fetches.wrappingIncrement(ordering: .relaxed)
        return response
    }

    /// Events accepted so far.
    public var eventCount: Int { events.load(ordering: .relaxed) }
    /// Fetches answered so far.
    public var fetchCount: Int { fetches.load(ordering: .relaxed) }

    /// A client whose transport is a new sink, logging only critical messages.
    /// - Parameters:
    ///   - stateDirectory: the client's state directory (`nil`: everything in memory).
    ///   - debounce: the client's debounce (`nil`: the default).
    ///   - ingestCapacity: the client's ring capacity (`nil`: the default).
    ///   - start: start the client before returning it.
    static func makeClient(
        projectToken: String, stateDirectory: URL? = nil, journal: JournalConfiguration? = nil, debounce: Duration? = nil,
        ingestCapacity: Int? = nil, engineScheduling: EngineScheduling? = nil, start: Bool
    )
        -> (client: SegmentsClient, sink: CountingSinkTransport)
    {
        let sink = CountingSinkTransport()
        var configuration = SegmentsConfiguration(projectToken: projectToken, transport: sink)
        configuration.stateDirectory = stateDirectory
        configuration.journal = journal
        if let debounce { configuration.debounce = debounce }
        if let ingestCapacity { configuration.ingestCapacity = ingestCapacity }
        if let engineScheduling { configuration.engineScheduling = engineScheduling }
        configuration.logger.logLevel = .critical
        let client = SegmentsClient(configuration: configuration)
        if start { client.start() }
        return (client, sink)
    }
}
