import Foundation
import RealtimeSegments

/// The `JSONDecoder`-based implementation that `SegmentsResponseDecoder` had before its hand-written
/// parser, kept verbatim as the oracle of the differential tests (`SegmentsResponseDifferentialTests`).
///
/// `decodeWire` is the old `decode` minus its last line (`SegmentsResponse(wireCategories:)`), so that
/// a test can see which wire keys were merged into one category: that merge iterates a dictionary,
/// so its order is not deterministic when several keys name one category.
enum ReferenceSegmentsDecoder {
    static func decode(_ body: some DataProtocol) throws(SegmentsError) -> SegmentsResponse {
        SegmentsResponse(wireCategories: try decodeWire(body))
    }

    static func decodeWire(_ body: some DataProtocol) throws(SegmentsError) -> [String: [Segment]] {
        let data = Data(body)
        guard !data.isEmpty else { throw .malformedResponse("empty body") }
        let root: [String: [Segment]]
        do {
            root = try JSONDecoder().decode([String: [Segment]].self, from: data)
        } catch let error as DecodingError {
            throw .malformedResponse(describe(error))
        } catch {
            throw .malformedResponse("\(error)")
        }
        if let empty = root.keys.first(where: { !SegmentCategory(name: $0).isValid }) {
            throw .malformedResponse("empty category key \"\(empty)\"")
        }
        return root
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "root" : keys.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context): return "invalid JSON at \(path(context))"
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "null where \(type) expected at \(path(context))"
        @unknown default: return "\(error)"
        }
    }
}
