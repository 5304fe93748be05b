import Dispatch
import RealtimeSegments

/// A transport whose fetches answer with the server's segments at the moment of the call, each
/// held until the test releases it by its number (0, 1, …): a request sent earlier can then be
/// answered later than one sent after it. Uploads and links succeed at once.
final class CallTimeAnswersTransport: SegmentsTransport, Sendable {
    private struct State {
        var server: SegmentsResponse
        var calls = 0
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
        var released: Set<Int> = []
    }

    private let state: Locked<State>

    init(server: SegmentsResponse) { state = Locked(State(server: server)) }

    var neverBlocks: Bool { true }

    /// What fetches called from now on answer.
    func setServer(_ response: SegmentsResponse) { state.withLock { $0.server = response } }

    /// Fetches called so far.
    var callCount: Int { state.withLock { $0.calls } }

    /// Lets fetch number `call` answer (now, or as soon as it is called).
    func release(_ call: Int) {
        let waiting = state.withLock { state in
            state.released.insert(call)
            return state.held.removeValue(forKey: call)
        }
        waiting?.resume()
    }

    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        let (call, answer) = state.withLock { state in
            state.calls += 1
            return (state.calls - 1, state.server)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let releasedAlready = state.withLock { state in
                if state.released.contains(call) { return true }
                state.held[call] = continuation
                return false
            }
            if releasedAlready { continuation.resume() }
        }
        return answer
    }

    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {}
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError) {}
}
