import Foundation
import RealtimeSegments

/// The JSON response bodies of the mock server, including the deliberately wrong ones that the
/// malformed-body fault sends.
enum WireResponseBodies {
    /// `{"success":true}`: a tracked event or customer update was accepted.
    static let success = Data(#"{"success":true}"#.utf8)
    /// `{}`: ids were linked.
    static let empty = Data("{}".utf8)

    /// The bare segments object of SPEC §7: category name → `[{"id", "segmentation_id"}]`, keys
    /// sorted so that equal responses are equal bytes.
    static func segments(_ response: SegmentsResponse) -> Data {
        var wire: [String: [Segment]] = [:]
        for (category, segments) in response.categories { wire[category.name] = segments }
        return encode(wire)
    }

    /// `{"results":[{"success":true}, ...]}` with one result per batch command.
    static func batchResults(count: Int) -> Data {
        let results = Array(repeating: #"{"success":true}"#, count: count).joined(separator: ",")
        return Data(#"{"results":[\#(results)]}"#.utf8)
    }

    /// `{"data":{"customer":{"audiences":{"edges":[]}}}}`: a well-formed qualified-segments answer,
    /// what a truncated fault on that endpoint cuts in half (its real answer needs a GraphQL
    /// execution, and half of any JSON object is equally unreadable).
    static let emptyQualifiedSegments = Data(#"{"data":{"customer":{"audiences":{"edges":[]}}}}"#.utf8)

    /// `{"error": message}`.
    static func error(_ message: String) -> Data {
        encode(["error": message])
    }

    /// A 200 body of the wrong shape for `endpoint`; `variant` (0, 1 or 2) picks which.
    ///
    /// For a fetch: an envelope around the categories, a non-string `id`, or a bare array. For
    /// qualified segments: `edges` that is not an array, `data` without `customer`, or HTML (each
    /// a "decode error" for the SDK). For the other endpoints: a JSON string instead of an object,
    /// a non-boolean `success`, or HTML.
    static func malformed(for endpoint: MockEndpoint, variant: Int) -> Data {
        let bodies: [String] =
            switch endpoint {
            case .fetchSegments:
                [
                    #"{"data":{"discovery":[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}]}}"#,
                    #"{"discovery":[{"id":66140257,"segmentation_id":"66140215fb50effc8a7218b4"}]}"#,
                    #"[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}]"#,
                ]
            case .qualifiedSegments:
                [
                    #"{"data":{"customer":{"audiences":{"edges":"qualified"}}}}"#,
                    #"{"data":{}}"#,
                    "<html><body>OK</body></html>",
                ]
            case .linkIds, .trackEvent, .trackCustomer, .trackBatch:
                [#""ok""#, #"{"success":"yes"}"#, "<html><body>OK</body></html>"]
            }
        return Data(bodies[variant % bodies.count].utf8)
    }

    private static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding dictionaries of strings and segments cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
