import Foundation

/// What the server does with one request, decided before any byte is written: the pure result of
/// ``MockRequestProcessor``, carried out by ``MockHTTPHandler``.
struct MockHTTPReply: Sendable {
    /// A complete HTTP response (always `content-type: application/json`).
    struct Response: Sendable {
        var status: Int
        var body: Data
        /// Extra headers (for example `allow` on a 405).
        var headers: [(String, String)] = []
        /// Close the connection after this response even if the client asked for keep-alive.
        var closesConnection = false

        /// A JSON error response `{"error": message}`.
        static func error(_ status: Int, _ message: String) -> Response {
            Response(status: status, body: WireResponseBodies.error(message))
        }
    }

    /// The action.
    enum Action: Sendable {
        /// Send the response.
        case respond(Response)
        /// Send the head of the response with the full `content-length`, then half the body, then
        /// close the connection.
        case truncate(Response)
        /// Close the connection abruptly (TCP reset) without a response.
        case reset
        /// Send nothing; close the connection after `limit` unless the client closes it first.
        case hang(limit: Duration)
        /// Run `produce` (a GraphQL execution, which is `async`) off the event loop, then send its
        /// response; nothing is sent if the connection closed meanwhile.
        case respondLater(@Sendable () async -> Response)
    }

    var action: Action
    /// Wait this long before the action.
    var delay: Duration?

    /// `response` at once.
    static func respond(_ response: Response) -> MockHTTPReply { MockHTTPReply(action: .respond(response), delay: nil) }
}
