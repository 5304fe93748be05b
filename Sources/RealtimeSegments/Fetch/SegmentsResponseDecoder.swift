import Foundation

/// Decodes a segments response body: a bare JSON object mapping category names to arrays of
/// `{"id": String, "segmentation_id": String}`.
///
/// Strict on shape, lenient on extras: a body that is not that shape (not an object, an envelope, a
/// non-array value, a segment without both string fields, an empty category key) is
/// ``SegmentsError/malformedResponse(_:)``; unknown extra fields inside a segment are ignored.
public enum SegmentsResponseDecoder {
    /// Decodes `body`. Throws ``SegmentsError/malformedResponse(_:)`` with a short reason.
    public static func decode(_ body: some DataProtocol) throws(SegmentsError) -> SegmentsResponse {
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
        return SegmentsResponse(wireCategories: root)
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
