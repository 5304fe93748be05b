import Foundation
@testable import RealtimeSegments

/// A backend that resolves a cookie to the customer linked to it last, as the real server does,
/// with link-ids calls that can be held between leaving the client and landing on the server.
///
/// A fetch answers the segments of the customer the cookie resolves to when the fetch arrives:
/// `discovery` holds one segment numbered by the customer (``segmentNumber(for:)``), so a test can
/// tell whose segments a callback or `getSegments` received.
final class LastLinkWinsTransport: SegmentsTransport {
    private struct State {
        var linkedCustomer: [String: String] = [:]
        var holdLinks = false
        var heldLinks: [CheckedContinuation<Void, Never>] = []
        var links: [String] = []
        var fetchedFor: [String] = []
        var linksInFlight = 0
        var mostLinksInFlight = 0
        var linkCalls = 0
        var holdFetches = false
        var heldFetches: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// The segment number standing for `customer` ("anonymous" for a cookie linked to nobody).
    static func segmentNumber(for customer: String) -> Int { customer == "anonymous" ? 1 : 100 + customer.count * 7 + Int(customer.utf8.first ?? 0) }

    /// The response the server gives for `customer`.
    static func response(for customer: String) -> SegmentsResponse {
        RealtimeSegmentsTests.response([.discovery: [segmentNumber(for: customer)]])
    }

    /// From now on, link calls wait (before landing) until ``releaseHeldLinks()``.
    func holdLinks() { state.withLock { $0.holdLinks = true } }

    /// Lets the held links land, in the order they were sent; later ones are no longer held.
    func releaseHeldLinks() {
        let held = state.withLock { state in
            state.holdLinks = false
            defer { state.heldLinks.removeAll() }
            return state.heldLinks
        }
        for continuation in held { continuation.resume() }
    }

    /// Lets the link sent last land; the others stay held.
    func releaseNewestHeldLink() {
        state.withLock { $0.heldLinks.popLast() }?.resume()
    }

    /// From now on, fetches wait (before the server answers them) until ``releaseHeldFetches()``.
    func holdFetches() { state.withLock { $0.holdFetches = true } }

    /// Lets the held fetches be answered; later ones are no longer held.
    func releaseHeldFetches() {
        let held = state.withLock { state in
            state.holdFetches = false
            defer { state.heldFetches.removeAll() }
            return state.heldFetches
        }
        for continuation in held { continuation.resume() }
    }

    var heldFetchCount: Int { state.withLock { $0.heldFetches.count } }
    /// Link calls made so far (landed or not).
    var linkCallCount: Int { state.withLock { $0.linkCalls } }

    /// The most link calls that were in flight at once.
    var mostLinksInFlight: Int { state.withLock { $0.mostLinksInFlight } }

    var heldLinkCount: Int { state.withLock { $0.heldLinks.count } }
    /// The customers linked, in the order the links landed.
    var landedLinks: [String] { state.withLock { $0.links } }
    /// The customer each fetch was answered for.
    var fetchedFor: [String] { state.withLock { $0.fetchedFor } }

    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {}

    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}

    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        state.withLock { state in
            state.linkCalls += 1
            state.linksInFlight += 1
            state.mostLinksInFlight = max(state.mostLinksInFlight, state.linksInFlight)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let hold = state.withLock { state in
                if state.holdLinks { state.heldLinks.append(continuation) }
                return state.holdLinks
            }
            if !hold { continuation.resume() }
        }
        let customer = externalIds["registered"] ?? "?"
        state.withLock { state in
            state.linkedCustomer[cookie] = customer
            state.links.append(customer)
            state.linksInFlight -= 1
        }
    }

    /// `true`: calls only suspend, so the engine runs their steps on its own thread, and a barrier
    /// after a message sees the link that message started already sent.
    var neverBlocks: Bool { true }

    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let hold = state.withLock { state in
                if state.holdFetches { state.heldFetches.append(continuation) }
                return state.holdFetches
            }
            if !hold { continuation.resume() }
        }
        let customer = state.withLock { state in
            let customer = state.linkedCustomer[cookie] ?? "anonymous"
            state.fetchedFor.append(customer)
            return customer
        }
        return Self.response(for: customer)
    }
}
