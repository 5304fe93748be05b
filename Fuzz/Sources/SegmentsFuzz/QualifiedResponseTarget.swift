import Foundation
import RealtimeSegments

/// The qualified-segments GraphQL answer (`QualifiedSegmentsWire.decodeResponse`): every 2xx body
/// is a list of names or a `fetchSegmentsFailed` / `invalidSegmentIdentifier` error, never a crash
/// or a hang.
enum QualifiedResponseTarget {
    static func run(_ data: Data) {
        do {
            _ = try QualifiedSegmentsWire.decodeResponse(status: 200, body: data)
        } catch {
            switch error {
            case .fetchSegmentsFailed, .invalidSegmentIdentifier: break
            default: check(false, "unexpected error \(error)")
            }
        }
    }
}
