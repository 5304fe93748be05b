import Foundation

/// `localizedDescription` is ``SegmentsError/description``: the sentence the logs show (for the
/// qualified segments errors, Optimizely's reason), not Foundation's generic one.
extension SegmentsError: LocalizedError {
    public var errorDescription: String? { description }
}
