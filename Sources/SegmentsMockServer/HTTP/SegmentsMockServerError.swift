/// Why ``SegmentsMockHTTPServer/start()`` failed.
public enum SegmentsMockServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host is not a loopback address (127.0.0.0/8, `::1` or `localhost`). The mock server
    /// only ever listens on this machine.
    case nonLoopbackHost(String)
    /// `start()` was called on a server that is starting or running.
    case alreadyStarted
    /// `stop()` was called while `start()` was binding; the server did not start.
    case stoppedWhileStarting
    /// The socket could not be bound (port in use, ...).
    case bindFailed(String)

    public var description: String {
        switch self {
        case .nonLoopbackHost(let host): "the mock server listens on loopback only, not on \"\(host)\""
        case .alreadyStarted: "the mock server is already started"
        case .stoppedWhileStarting: "the mock server was stopped while it was starting"
        case .bindFailed(let reason): "the mock server could not bind: \(reason)"
        }
    }
}
