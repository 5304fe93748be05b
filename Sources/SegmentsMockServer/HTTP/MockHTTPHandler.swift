import Foundation
import Logging
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-connection channel handler of ``SegmentsMockHTTPServer``: collects each request (capping
/// its body), asks ``MockRequestProcessor`` for the reply and carries it out, including the faults
/// that need the socket (delayed answers, truncated bodies, resets, hangs).
///
/// Sits behind NIO's `HTTPServerPipelineHandler`, which delivers one request at a time on a
/// keep-alive connection and holds the next until the current response has ended, so a delayed
/// or hanging reply also delays the requests pipelined behind it, as a real server would.
///
/// Threading: confined to its channel's event loop, like every NIO handler.
final class MockHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let processor: MockRequestProcessor
    private let maxBodyBytes: Int
    private let logger: Logger
    /// The server's connections, which ``SegmentsMockHTTPServer/stop()`` waits on.
    private let connections: ConnectionRegistry

    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// The current request's body went over the cap: it was answered with 413 and the connection
    /// is closing, so its remaining parts are dropped.
    private var rejectingBody = false
    /// A delayed reply or the end of a hang, cancelled if the connection closes first.
    private var scheduled: Scheduled<Void>?

    init(processor: MockRequestProcessor, maxBodyBytes: Int, logger: Logger, connections: ConnectionRegistry) {
        self.processor = processor
        self.connections = connections
        self.maxBodyBytes = maxBodyBytes
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            rejectingBody = false
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maxBodyBytes {
                rejectOversizedBody(context: context, version: head.version)
            }
        case .body(var chunk):
            guard !rejectingBody, let head else { return }
            guard body.readableBytes + chunk.readableBytes <= maxBodyBytes else {
                rejectOversizedBody(context: context, version: head.version)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            guard !rejectingBody, let head else { return }
            self.head = nil
            let request = MockRequestProcessor.Request(
                method: head.method, uri: head.uri, authorization: head.headers.first(name: "authorization"),
                apiKey: head.headers.first(name: "x-api-key"), contentType: head.headers.first(name: "content-type"),
                body: Data(body.readableBytesView))
            body.clear()
            let reply = processor.reply(to: request)
            logger.trace("mock server: \(head.method.rawValue) \(head.uri) -> \(reply.action)")
            // After a request that asks to change protocols, NIO's parser reads nothing more from
            // the connection: it is answered, then closed, rather than left for the client to wait on.
            let asksToUpgrade = head.method == .CONNECT
                || head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
            perform(reply, version: head.version, keepAlive: head.isKeepAlive && !asksToUpgrade, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelScheduled()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelScheduled()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            // Not HTTP: answer 400 in the server's JSON error format, then close (the decoder
            // cannot continue after a parse error).
            let response = MockHTTPReply.Response.error(400, "malformed HTTP request")
            write(response, version: .http1_1, keepAlive: false, context: context)
        } else {
            logger.debug("mock server: connection error \(error)")
            context.close(promise: nil)
        }
    }

    // MARK: Replies

    private func perform(_ reply: MockHTTPReply, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        guard let delay = reply.delay else {
            act(reply.action, version: version, keepAlive: keepAlive, context: context)
            return
        }
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
            self.scheduled = nil
            self.act(reply.action, version: version, keepAlive: keepAlive, context: context)
        }
    }

    private func act(
        _ action: MockHTTPReply.Action, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        switch action {
        case .respond(let response):
            write(response, version: version, keepAlive: keepAlive && !response.closesConnection, context: context)
        case .truncate(let response):
            // Promise the whole body, send half, then close: the client sees a body shorter than
            // its content-length.
            context.write(wrapOutboundOut(.head(responseHead(response, version: version, keepAlive: true))), promise: nil)
            var half = context.channel.allocator.buffer(capacity: response.body.count / 2)
            half.writeBytes(response.body.prefix(max(1, response.body.count / 2)))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(half)))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        case .reset:
            resetConnection(context: context)
        case .hang(let limit):
            scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limit)) {
                self.scheduled = nil
                context.close(promise: nil)
            }
        case .respondLater(let produce):
            // The pipelining handler holds the connection's next request until this response
            // ends, so answers stay in request order.
            let answer = context.eventLoop.makeFutureWithTask(produce)
            connections.track(answer.map { _ in })
            answer.assumeIsolated().whenSuccess { response in
                guard context.channel.isActive else { return }
                self.write(
                    response, version: version, keepAlive: keepAlive && !response.closesConnection, context: context)
            }
        }
    }

    private func write(
        _ response: MockHTTPReply.Response, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        context.write(wrapOutboundOut(.head(responseHead(response, version: version, keepAlive: keepAlive))), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: response.body.count)
        buffer.writeBytes(response.body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let ended = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private func responseHead(_ response: MockHTTPReply.Response, version: HTTPVersion, keepAlive: Bool)
        -> HTTPResponseHead
    {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(response.body.count))
        headers.add(name: "connection", value: keepAlive ? "keep-alive" : "close")
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        return HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
    }

    /// Answers 413 and closes the connection: the rest of the body is never read.
    private func rejectOversizedBody(context: ChannelHandlerContext, version: HTTPVersion) {
        rejectingBody = true
        body.clear()
        let response = MockHTTPReply.Response.error(413, "request body larger than \(maxBodyBytes) bytes")
        write(response, version: version, keepAlive: false, context: context)
    }

    /// Closes with SO_LINGER 0, so the kernel sends a TCP RST instead of an orderly FIN: the
    /// client sees "connection reset by peer", the harshest way a connection can end.
    private func resetConnection(context: ChannelHandlerContext) {
        guard let provider = context.channel as? any SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func cancelScheduled() {
        scheduled?.cancel()
        scheduled = nil
    }
}
