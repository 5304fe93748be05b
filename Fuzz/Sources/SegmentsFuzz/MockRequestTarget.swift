import Foundation
@testable import SegmentsMockServer

/// The mock server's request decoders (`WireRequestDecoder`, `GraphQLRequestBody`, and
/// `AuthorizationHeader` on the bytes as a header value): every input is a request or a rejection
/// (the server's 400 or 401), never a crash or a hang.
enum MockRequestTarget {
    static func run(_ data: Data) {
        _ = try? WireRequestDecoder.event(data, now: 0)
        _ = try? WireRequestDecoder.customerUpdate(data)
        _ = try? WireRequestDecoder.externalIds(data)
        _ = try? WireRequestDecoder.batch(data, now: 0)
        _ = try? GraphQLRequestBody.decode(data)
        _ = try? AuthorizationHeader.parse(String(decoding: data, as: UTF8.self))
    }
}
