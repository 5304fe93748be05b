import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves a ``RunMetrics`` over HTTP/1.1: `GET /metrics` answers the text exposition
/// (`text/plain; version=0.0.4`), any other path 404 and any other method 405.
///
/// Threading: ``start(metrics:host:port:)`` and ``stop()`` block the calling thread (never call
/// them from an event loop); requests are answered on the server's own event loop thread.
public final class MetricsServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The port bound (the one asked for, or the one the system chose for port 0).
    public let port: Int
    /// The address bound.
    public let host: String

    /// Binds `host:port` (port 0: any free port) and starts answering. Throws the system's error
    /// when the address cannot be bound (in use, not an address of this machine).
    public static func start(metrics: RunMetrics, host: String = "127.0.0.1", port: Int) throws -> MetricsServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(metrics: metrics))
                    }
                }
                .bind(host: host, port: port).wait()
            return MetricsServer(group: group, channel: channel, host: host, port: channel.localAddress?.port ?? port)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, host: String, port: Int) {
        self.group = group
        self.channel = channel
        self.host = host
        self.port = port
    }

    /// The URL of the endpoint.
    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/metrics" }

    /// Closes the listening socket and every connection, then ends the server's thread.
    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Answers one connection's requests (keep-alive as the client asks).
private final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let metrics: RunMetrics
    private var head: HTTPRequestHead?

    init(metrics: RunMetrics) { self.metrics = metrics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
        case .body:
            break
        case .end:
            guard let request = head else { return }
            head = nil
            let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
            let (status, body, type): (HTTPResponseStatus, String, String) =
                switch (request.method, path) {
                case (.GET, "/metrics"): (.ok, metrics.exposition(), "text/plain; version=0.0.4; charset=utf-8")
                case (_, "/metrics"): (.methodNotAllowed, "only GET\n", "text/plain; charset=utf-8")
                default: (.notFound, "not found: the metrics are at /metrics\n", "text/plain; charset=utf-8")
                }
            var headers = HTTPHeaders()
            headers.add(name: "content-type", value: type)
            headers.add(name: "content-length", value: "\(body.utf8.count)")
            if !request.isKeepAlive { headers.add(name: "connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
            let keepAlive = request.isKeepAlive
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                if !keepAlive { context.close(promise: nil) }
            }
        }
    }
}
