import Foundation
import GraphQL
import RealtimeSegments

/// The body of a GraphQL-over-HTTP POST: `{"query": "...", "variables": {...}, "operationName": "..."}`.
/// `variables` and `operationName` may be missing or `null`; unknown members are ignored.
struct GraphQLRequestBody: Sendable, Decodable {
    /// The GraphQL document text.
    var query: String
    /// The variable values, by name.
    var variables: [String: Map]
    /// The operation to run when the document has several.
    var operationName: String?

    /// Creates a request.
    init(query: String, variables: [String: Map] = [:], operationName: String? = nil) {
        self.query = query
        self.variables = variables
        self.operationName = operationName
    }

    private enum CodingKeys: String, CodingKey {
        case query, variables, operationName
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        query = try container.decode(String.self, forKey: .query)
        variables = try container.decodeIfPresent([String: Map].self, forKey: .variables) ?? [:]
        operationName = try container.decodeIfPresent(String.self, forKey: .operationName)
    }

    /// The longest `query` accepted, in UTF-8 bytes; the SDK's is a few hundred.
    static let maxQueryBytes = 1 << 16
    /// The deepest nesting of `{`, `[` and `(` accepted in `query`; the SDK's query nests 5 deep.
    /// GraphQLSwift parses a selection set by recursion, and prints a nested argument for its
    /// validation messages at a cost that doubles with each level, so deeper ones are refused
    /// before they reach it.
    static let maxQueryDepth = 32

    /// Decodes a request body; a body that is not JSON, lacks a string `query`, or whose query is
    /// longer than ``maxQueryBytes`` or nested deeper than ``maxQueryDepth`` is rejected with a
    /// reason (the server's 400).
    static func decode(_ body: Data) throws(RequestValidation.Rejection) -> GraphQLRequestBody {
        guard !body.isEmpty else { throw RequestValidation.Rejection(reason: "empty body") }
        let request = try decodeJSON(body)
        guard request.query.utf8.count <= maxQueryBytes else {
            throw RequestValidation.Rejection(reason: "query longer than \(maxQueryBytes) bytes")
        }
        guard JSONNestingLimit.depth(ofUTF8: request.query.utf8, countingParentheses: true, stoppingAbove: maxQueryDepth)
            <= maxQueryDepth
        else {
            throw RequestValidation.Rejection(reason: "query nested deeper than \(maxQueryDepth) levels")
        }
        return request
    }

    private static func decodeJSON(_ body: Data) throws(RequestValidation.Rejection) -> GraphQLRequestBody {
        do {
            return try JSONDecoder().decodeUntrusted(GraphQLRequestBody.self, from: body)
        } catch DecodingError.keyNotFound(let key, _) {
            throw RequestValidation.Rejection(reason: "missing \"\(key.stringValue)\"")
        } catch DecodingError.typeMismatch(_, let context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw RequestValidation.Rejection(reason: path.isEmpty ? "body is not a JSON object" : "\"\(path)\" has the wrong type")
        } catch {
            throw RequestValidation.Rejection(reason: "invalid JSON")
        }
    }
}
