import Foundation
@testable import SegmentsMockServer

/// The mock server's request decoders (`WireRequestDecoder`, `GraphQLRequestBody`): every body is a
/// request or a rejection (the server's 400), never a crash or a hang.
enum MockRequestTarget {
    static func run(_ data: Data) {
        _ = try? WireRequestDecoder.event(data)
        _ = try? WireRequestDecoder.customerUpdate(data)
        _ = try? WireRequestDecoder.externalIds(data)
        _ = try? WireRequestDecoder.batch(data)
        _ = try? GraphQLRequestBody.decode(data)
    }
}
