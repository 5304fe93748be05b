import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-connection-at-a-time HTTP/1.1 server on a blocking socket thread: answers each request
/// with the next scripted response (the last one repeats) and records what it received.
///
/// A response can also be cut short (``Response/Delivery``): its head promises the whole body,
/// then half of it is sent and the connection is closed, or held open until the client gives up.
final class CannedHTTPServer: Sendable {
    /// One request as received.
    struct Request: Sendable {
        var line: String
        /// Every header field in the order received, names lowercased.
        var fields: [(name: String, value: String)]
        var body: Data

        /// The header fields by lowercased name (the last one of a repeated name).
        var headers: [String: String] {
            Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        }

        /// Every value of the header `name` (lowercased), in order.
        func values(of name: String) -> [String] {
            fields.filter { $0.name == name }.map(\.value)
        }
    }

    /// One scripted answer.
    struct Response: Sendable {
        /// How the body is sent.
        enum Delivery: Sendable {
            /// The whole body.
            case whole
            /// `content-length` of the whole body, then its first half, then the connection closes.
            case truncated
            /// `content-length` of the whole body, then its first half; the connection stays open
            /// until the client closes it (for example at its deadline).
            case stalled
        }

        var status: Int
        var body: String
        var delivery: Delivery = .whole
        /// Extra header fields (for example `retry-after`).
        var headers: [String: String] = [:]
        /// Bytes sent instead of `body` (for a body that is not text, such as a gzip stream).
        var rawBody: Data? = nil
    }

    private struct State {
        var responses: [Response]
        var requests: [Request] = []
        var connections = 0
        /// The connection being served, so that ``stop()`` can end a stalled one.
        var current: Int32?
        var stopped = false
        /// Whether the thread that accepts and serves connections has returned.
        var threadEnded = false
        /// Responses whose first half was sent and whose rest never will be.
        var stalledResponses = 0
    }

    private let listener: SilentListener
    private let state: LockBox<State>
    /// Signalled once by the server thread as it returns.
    private let threadEnded = DispatchSemaphore(value: 0)
    var port: Int { listener.port }

    /// A server answering with `responses` as (status, whole body).
    convenience init(responses: [(Int, String)]) throws {
        try self.init(scripted: responses.map { Response(status: $0.0, body: $0.1) })
    }

    /// A server answering with `responses`.
    init(scripted responses: [Response]) throws {
        precondition(!responses.isEmpty, "script at least one response")
        listener = try SilentListener()
        state = LockBox(State(responses: responses))
        let listener = listener
        let state = state
        let ended = threadEnded
        // The thread owns the listener's descriptor and closes it itself on the way out: were
        // stop() to close it, the number could be reused by another test's socket before this
        // thread's next accept, which would then take that test's connection.
        Thread.detachNewThread {
            while true {
                let connection = accept(listener.descriptor, nil, nil)
                let open = state.withLock { state in
                    guard connection >= 0, !state.stopped else { return false }
                    state.connections += 1
                    state.current = connection
                    return true
                }
                if !open {
                    if connection >= 0 { _ = Self.closeDescriptor(connection) }
                    break
                }
                Self.serve(connection, state: state)
                // Closed under the lock, so stop() never shuts down a descriptor reused meanwhile.
                state.withLock { state in
                    state.current = nil
                    _ = Self.closeDescriptor(connection)
                }
            }
            listener.close()
            state.withLock { $0.threadEnded = true }
            ended.signal()
        }
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var connectionCount: Int { state.withLock { $0.connections } }
    /// Responses of ``Response/Delivery/stalled`` delivery sent so far (their first half).
    var stalledResponseCount: Int { state.withLock { $0.stalledResponses } }
    /// Whether the server's thread has returned, so it can no longer touch any descriptor.
    var threadHasEnded: Bool { state.withLock { $0.threadEnded } }

    /// Stops the server and returns once its thread has ended: a stalled connection is shut
    /// down, the listener stops accepting, and the thread closes the listener's descriptor.
    /// Calling it again does nothing.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            if !state.stopped, let current = state.current { _ = shutdown(current, Int32(SHUT_RDWR)) }
            return !state.stopped
        }
        guard first else { return }
        // Wakes an accept in progress (and makes the next one fail at once) without freeing the
        // descriptor number.
        _ = shutdown(listener.descriptor, Int32(SHUT_RDWR))
        threadEnded.wait()
    }

    private static func serve(_ connection: Int32, state: LockBox<State>) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            // Read a head, then Content-Length bytes of body.
            while buffer.range(of: Data("\r\n\r\n".utf8)) == nil {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let headEnd = buffer.range(of: Data("\r\n\r\n".utf8))!
            let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst()
            var fields: [(name: String, value: String)] = []
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields.append((
                    name: line[..<colon].lowercased(),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            let request = Request(line: requestLine, fields: fields, body: Data())
            let length = Int(request.headers["content-length"] ?? "0") ?? 0
            buffer = Data(buffer[headEnd.upperBound...])
            while buffer.count < length {
                let count = recv(connection, &chunk, chunk.count, 0)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
            let response = state.withLock { state in
                state.requests.append(Request(line: requestLine, fields: fields, body: body))
                return state.responses.count > 1 ? state.responses.removeFirst() : state.responses[0]
            }
            let payload = response.rawBody ?? Data(response.body.utf8)
            let extra = response.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
            let text = "HTTP/1.1 \(response.status) Status\r\ncontent-type: application/json\r\ncontent-length: \(payload.count)\r\n\(extra)\r\n"
            let sentBody = response.delivery == .whole ? payload : payload.prefix(payload.count / 2)
            let bytes = Data(text.utf8) + sentBody
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent != bytes.count { return }
            switch response.delivery {
            case .whole:
                continue
            case .truncated:
                return
            case .stalled:
                state.withLock { $0.stalledResponses += 1 }
                // Nothing more will be sent: wait for the client to close (or for stop()).
                while recv(connection, &chunk, chunk.count, 0) > 0 {}
                return
            }
        }
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }
}
